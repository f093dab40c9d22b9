#!/usr/bin/env python3
"""Layer cycles out of a log of NVIDIA's Verilator testbench (verif/verilator/nvdla.cpp),
as the calibration tables record them (tests/calibration/README.md).

    python3 tests/calibration/rtl_layers.py [--config nv_small|nv_full] LOG [LOG...]

The testbench prints "(TICK) write to nvdla: addr A, data D" for every CSB write; the
calibration build also prints "(TICK) intr rise" when the interrupt line goes high.  There
are 2 ticks a clock.  For each log this prints, tab separated: the log, the launch (the
last write that starts work before the first interrupt: CDMA's D_OP_ENABLE when a
convolution was enabled, else a unit's D_OP_ENABLE or BDMA's CFG_LAUNCH0/1, with bit 0
set; its register and address) and every interrupt's cycle counted from that launch.  A
driver programs (and enables) the next layers while one runs, so on a trace of several
layers the last write before the first interrupt is no launch.  The
launch registers come from share/regdb/CONFIG.regs (default nv_small); a log without
one falls back to the last write, and says so.
"""
import os
import re
import sys

LINE = re.compile(r'^\((\d+)\) (.*)$')


REGDB = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'share', 'regdb')


def regdb_entries(config):
    """Each unit's op-enable register and each other register of
    share/regdb/CONFIG.regs, as (unit, name, CSB word address: the low 16
    bits, as both converters write them)."""
    unit, base = None, 0
    with open(os.path.join(REGDB, config + '.regs')) as f:
        for line in f:
            tok = line.split('#')[0].split()
            if tok[:1] == ['unit']:
                unit, base = tok[1], int(tok[2], 0)
                for t in tok[3:]:
                    if t.startswith('opena='):
                        yield unit, 'D_OP_ENABLE', ((base + int(t[6:], 0)) >> 2) & 0xffff
            elif tok[:1] == ['reg']:
                yield unit, tok[2], ((base + int(tok[1], 0)) >> 2) & 0xffff


def launch_registers(config):
    """CSB word addresses of the registers whose write starts work, with
    their names."""
    return {addr: unit + '.' + name for unit, name, addr in regdb_entries(config)
            if name == 'D_OP_ENABLE' or (unit == 'BDMA' and name in ('CFG_LAUNCH0', 'CFG_LAUNCH1'))}


def layer_cycles(path, launches):
    writes, rises = [], []
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if not m:
                continue
            tick, what = int(m.group(1)), m.group(2)
            if what.startswith('write to nvdla'):
                addr = what.split('addr ')[1].split(',')[0]
                data = what.split('data ')[1].split()[0] if 'data ' in what else '0'
                writes.append((tick, addr, int(data, 16)))
            elif what == 'intr rise':
                rises.append(tick)
    if not rises:
        return None
    before = [w for w in writes if w[0] < rises[0]]
    if not before:
        return None
    starts = [w for w in before if int(w[1], 16) & 0xffff in launches and w[2] & 1]
    # a convolution starts when CDMA is enabled, the firmware's last enable
    # of it; units enabled after it wait for their input
    convs = [w for w in starts if launches[int(w[1], 16) & 0xffff] == 'CDMA.D_OP_ENABLE']
    if convs:
        starts = convs
    if starts:
        launch, addr, _ = starts[-1]
        name = launches[int(addr, 16) & 0xffff]
    else:
        launch, addr, _ = before[-1]
        name = 'the last write (no launch register written)'
    return name, addr, [(r - launch) // 2 for r in rises]


def main():
    args = sys.argv[1:]
    config = 'nv_small'
    if args[:1] == ['--config'] and len(args) > 1:
        config, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    launches = launch_registers(config)
    status = 0
    for path in args:
        got = layer_cycles(path, launches)
        if got is None:
            print('%s\tno interrupt after a CSB write' % path)
            status = 1
            continue
        name, addr, cycles = got
        print('%s\tlaunch %s %s\t%s' % (path, name, addr, ' '.join(str(c) for c in cycles)))
    sys.exit(status)


if __name__ == '__main__':
    main()
