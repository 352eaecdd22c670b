# sizes that go back
0 0
10000 20
5000 50
30000 100
