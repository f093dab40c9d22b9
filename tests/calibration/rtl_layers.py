#!/usr/bin/env python3
"""Layer cycles out of a log of NVIDIA's Verilator testbench (verif/verilator/nvdla.cpp),
as the calibration tables record them (tests/calibration/README.md).

    python3 tests/calibration/rtl_layers.py LOG [LOG...]

The testbench prints "(TICK) write to nvdla: addr A, data D" for every CSB write; the
calibration build also prints "(TICK) intr rise" when the interrupt line goes high.  There
are 2 ticks a clock.  For each log this prints, tab separated: the log, the launch (the
last CSB write before the first interrupt, its address), and every interrupt's cycle
counted from that launch.
"""
import re
import sys

LINE = re.compile(r'^\((\d+)\) (.*)$')


def layer_cycles(path):
    writes, rises = [], []
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if not m:
                continue
            tick, what = int(m.group(1)), m.group(2)
            if what.startswith('write to nvdla'):
                writes.append((tick, what.split('addr ')[1].split(',')[0]))
            elif what == 'intr rise':
                rises.append(tick)
    if not rises:
        return None
    before = [w for w in writes if w[0] < rises[0]]
    if not before:
        return None
    launch, addr = before[-1]
    return addr, [(r - launch) // 2 for r in rises]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    status = 0
    for path in sys.argv[1:]:
        got = layer_cycles(path)
        if got is None:
            print('%s\tno interrupt after a CSB write' % path)
            status = 1
            continue
        addr, cycles = got
        print('%s\tlaunch %s\t%s' % (path, addr, ' '.join(str(c) for c in cycles)))
    sys.exit(status)


if __name__ == '__main__':
    main()
