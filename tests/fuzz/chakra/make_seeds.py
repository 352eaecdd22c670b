#!/usr/bin/env python3
# The seeds of tests/fuzz_chakra.c in tests/fuzz/chakra/seeds, encoded by
# hand (no protobuf module needed): Chakra traces as the converters of
# github.com/mlcommons/chakra lay them out (a varint length before each
# message, GlobalMetadata first; Node and AttributeProto fields by their
# numbers in schema/protobuf/et_def.proto), each in an even-length copy
# (read by chakra_parse) and an odd one (read from a folder), a 0 byte
# (an empty Node) added to make the length. Some are refused on purpose:
# a cycle, a duplicate id, a time past 64 bits of picoseconds, negative
# and out-of-range attributes.
#   tests/fuzz/chakra/make_seeds.py
import struct, os
def varint(v):
    out=b''
    while True:
        b=v&0x7f; v>>=7
        if v: out+=bytes([b|0x80])
        else: return out+bytes([b])
def key(f,w): return varint((f<<3)|w)
def ld(f,b): return key(f,2)+varint(len(b))+b
def vi(f,v): return key(f,0)+varint(v & (2**64-1))
def attr(name, kind, val):
    b=ld(1,name.encode())
    if kind=='i64': b+=vi(9,val)
    elif kind=='i32': b+=vi(7,val)
    elif kind=='u64': b+=vi(13,val)
    elif kind=='u32': b+=vi(11,val)
    elif kind=='s64': b+=vi(17,(val<<1)^(val>>63))
    elif kind=='f64': b+=key(21,1)+struct.pack('<Q',val)
    elif kind=='sf32': b+=key(23,5)+struct.pack('<i',val)
    elif kind=='bool': b+=vi(27,val)
    elif kind=='str': b+=ld(29,val.encode())
    elif kind=='bl': b+=ld(28, ld(1, bytes(val)))
    elif kind=='dbl': b+=key(3,1)+struct.pack('<d',val)
    return b
def packed(f,vals): return ld(f,b''.join(varint(v) for v in vals)) if vals else b''
def node(id,name,typ,dur=0,data=(),ctrl=(),attrs=(),start=0):
    b=vi(1,id) if id else b''
    b+=ld(2,name.encode())+ (vi(3,typ) if typ else b'') + packed(4,ctrl)+packed(5,data)
    if start: b+=vi(6,start)
    if dur: b+=vi(7,dur)
    for a in attrs: b+=ld(10,a)
    return b
def meta(version=None, attrs=()):
    b=ld(1,version.encode()) if version else b''
    for a in attrs: b+=ld(2,a)
    return b
def stream(*msgs): return b''.join(varint(len(m))+m for m in msgs)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'seeds')
seeds={}
pm=meta(None,[attr('schema','str','1.1.1-chakra.0.0.4'),attr('pid','u64',4242),attr('time','str','2024-07-01'),attr('start_ts','u64',1),attr('finish_ts','u64',9)])
seeds['pytorch']=stream(pm,
 node(10,'## process_group:init ##',1),
 node(11,'aten::mm',4,3,ctrl=[999],attrs=[attr('rf_id','i64',7),attr('is_cpu_op','bool',1)]),
 node(12,'ncclDevKernel_SendRecv',5,2,ctrl=[10],attrs=[attr('is_cpu_op','bool',0),attr('comm_size','u64',4096),attr('pg_name','str','1')]),
 node(13,'ncclDevKernel_SendRecv',6,2,data=[14],attrs=[attr('comm_size','i64',4096),attr('comm_src','i32',3),attr('comm_tag','i32',9)]),
 node(14,'ncclDevKernel_AllGather',7,25,data=[12],attrs=[attr('comm_type','i64',2),attr('comm_size','s64',65536),attr('pg_name','str','0'),attr('involved_dim','bl',[1,0,1])]),
 node(15,'checkpoint',10,data=[12]),
 node(16,'newer',42,start=5))
seeds['kinds']=stream(meta('0.0.4'),
 node(1,'a',7,attrs=[attr('comm_type','u32',9),attr('comm_size','f64',8),attr('comm_priority','i32',0)]),
 node(2,'b',5,data=[1],attrs=[attr('comm_size','sf32',8),attr('comm_dst','u64',2),attr('comm_tag','u32',1)]),
 node(3,'c',4,1,data=[2],attrs=[attr('is_cpu_op','i64',0),attr('num_ops','dbl',1.5)]))
seeds['pg-int']=stream(meta('0.0.4'),node(1,'a',5,attrs=[attr('comm_size','u64',1),attr('pg_name','i64',1)]))
seeds['cycle']=stream(meta('0.0.4'),node(1,'a',4,1,data=[2]),node(2,'b',4,1,data=[1]),node(3,'c',4,1,data=[3]))
seeds['dup-dangling']=stream(meta(),node(5,'a',4,1),node(5,'b',4,1,data=[77]))
seeds['long-time']=stream(meta('0.0.4'),node(1,'\u00e9'*100+'\n',4,2**63))
seeds['neg']=stream(meta('0.0.4'),node(1,'x',7,attrs=[attr('comm_type','i64',-1),attr('comm_size','i64',-5),attr('involved_dim','bl',[1]*70)]))
for k,v in seeds.items():
    for suffix,data in (('even',v if len(v)%2==0 else v+b'\x00'),('odd',v if len(v)%2 else v+b'\x00')):
        open(os.path.join(out, '%s-%s.et' % (k, suffix)), 'wb').write(data)
