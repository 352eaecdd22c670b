#!/usr/bin/env python3
"""The manual pages, made at build time from the sources users read, so
that they cannot drift from them:

  man.py help ROCESIM VERB VERSION OUT   rocesim-VERB(1) (rocesim(1) when
                                         VERB is "") from `rocesim VERB --help`
  man.py md SCENARIO.md VERSION OUT      rocesim-scenario(5) from
                                         docs/scenario.md
"""
import re
import subprocess
import sys


def esc(s):
    """Text as troff takes it: backslashes doubled, no line read as a request."""
    s = s.replace('\\', '\\e')
    if s.startswith(('.', "'")):
        s = '\\&' + s
    return s


def inline(s):
    """Markdown's `code` in bold, links as their text, then escaped."""
    s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)
    parts = s.split('`')
    out = []
    for i, p in enumerate(parts):
        p = p.replace('\\', '\\e')
        out.append('\\fB' + p + '\\fR' if i % 2 else p)
    s = ''.join(out)
    if s.startswith(('.', "'")):
        s = '\\&' + s
    return s


def help_page(rocesim, verb, version, out):
    args = [rocesim] + ([verb] if verb else []) + ['--help']
    text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    lines = text.rstrip('\n').split('\n')
    blank = lines.index('') if '' in lines else len(lines)
    synopsis, rest = lines[:blank], lines[blank + 1:]
    start = next((i for i, l in enumerate(rest) if l.strip()), len(rest))
    para = []
    for l in rest[start:]:
        if not l.strip():
            break
        para.append(l.strip())
    summary = ' '.join(para).split('. ')[0].rstrip('.').replace('`', '')
    for cut in (' (', ', ', ': '):
        if len(summary) > 72 and cut in summary[20:]:
            summary = summary[:20 + summary[20:].index(cut)]
    if not verb:
        summary = 'a packet-level simulator of RoCEv2 lossless Ethernet fabrics'
    name = 'rocesim-' + verb if verb else 'rocesim'
    page = ['.TH %s 1 "" "rocesim %s" "rocesim manual"' % (name.upper(), version),
            '.SH NAME', '%s \\- %s' % (name, esc(summary)),
            '.SH SYNOPSIS', '.nf'] + [esc(l) for l in synopsis] + ['.fi',
            '.SH DESCRIPTION', '.nf'] + [esc(l) for l in rest] + ['.fi',
            '.SH SEE ALSO']
    see = ['rocesim(1)'] if verb else []
    see += ['rocesim-scenario(5)']
    page.append(', '.join('\\fB%s\\fR%s' % (s[:-3], s[-3:]) for s in see))
    open(out, 'w').write('\n'.join(page) + '\n')


def md_page(src, version, out):
    lines = open(src).read().split('\n')
    page = ['.TH ROCESIM-SCENARIO 5 "" "rocesim %s" "rocesim manual"' % version,
            '.SH NAME', 'rocesim-scenario \\- the scenario file of rocesim',
            '.SH DESCRIPTION']
    code = False
    for l in lines[1:]:
        if l.startswith('```'):
            page.append('.fi' if code else '.nf')
            code = not code
        elif code:
            page.append(esc(l))
        elif l.startswith('#'):
            page.append('.SH ' + inline(l.lstrip('#').strip()).upper())
        elif l.startswith('|---'):
            continue
        elif l.startswith('| '):
            cells = [c.strip() for c in l.strip().strip('|').split(' | ')]
            if cells[0] == 'key':
                continue
            page.append('.TP')
            head = inline(cells[0])
            if len(cells) > 2 and cells[1]:
                head += ' (default: ' + inline(cells[1]) + ')'
            page.append(head)
            page.append(inline(cells[-1]))
        elif not l.strip():
            page.append('.PP')
        else:
            page.append(inline(l))
    page += ['.SH SEE ALSO', '\\fBrocesim\\fR(1), \\fBrocesim-run\\fR(1)']
    open(out, 'w').write('\n'.join(page) + '\n')


if __name__ == '__main__':
    if sys.argv[1] == 'help':
        help_page(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        md_page(sys.argv[2], sys.argv[3], sys.argv[4])
