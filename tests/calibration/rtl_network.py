#!/usr/bin/env python3
"""Whole-network cycles out of a log of NVIDIA's Verilator testbench replaying an
`export txn` folder, as tests/calibration/rtl_networks.tsv records them (README.md, "Whole
networks").

    python3 tests/calibration/rtl_network.py [--config nv_small] LOG

The export awaits one interrupt at a time with the others masked, so the testbench's
"(TICK) intr rise" line says when the driver saw a layer finish, not when it finished: a
layer that ends while the driver waits for another rises only when it is unmasked.  The
figures therefore come from the RTL's own interrupt status: the build for these runs adds a
$display to GLB's interrupt controller (README step 8) that prints
"PROBE GLB CYCLE set NAME" when a status bit is set and "PROBE GLB CYCLE core_intr rise"
when the line into the synchroniser rises.  Pairing each core_intr rise with the
testbench's next "intr rise" gives the offset from core cycles to testbench ticks (2 a
clock), which has to be the same for every pair; with it, a status bit's cycle counts as
the tick its interrupt would have risen, the edge the single-layer tables measure to.

A hardware layer starts at its unit's D_OP_ENABLE write (CDMA's for a convolution: the
firmware enables it last; an SDP fed by a convolution starts with it), in the register
group the unit's S_POINTER last named, and ends when that group's done bit is set: CACC_DONE for a convolution, SDP_DONE, PDP_DONE,
CDP_DONE.  Printed, tab separated: the measure (`network`: the first op enable to the last
done bit; `CONV#K`, `SDP#K`, ...: the unit's K-th layer in launch order, from 0) and its
cycles.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rtl_layers import regdb_entries  # noqa: E402

TICK = re.compile(r'^\((\d+)\) (.*)$')
PROBE = re.compile(r'^PROBE GLB (\d+) (set (\w+)|core_intr rise)$')

# the unit whose op enable launches a layer, and the status bit that ends it
LAYER_UNITS = {'CDMA': ('CONV', 'CACC_DONE_STATUS'), 'SDP': ('SDP', 'SDP_DONE_STATUS'),
               'PDP': ('PDP', 'PDP_DONE_STATUS'), 'CDP': ('CDP', 'CDP_DONE_STATUS')}


def unit_registers(config):
    """{word address: (unit, 'OP_ENABLE' or 'S_POINTER')} for the launching units."""
    regs = {}
    for unit, name, addr in regdb_entries(config):
        if unit in LAYER_UNITS and name in ('D_OP_ENABLE', 'S_POINTER'):
            regs[addr] = (unit, 'OP_ENABLE' if name == 'D_OP_ENABLE' else name)
        elif unit == 'SDP' and name == 'D_FEATURE_MODE_CFG':
            regs[addr] = (unit, 'FEATURE_MODE')
    return regs


def read_log(path):
    writes, tb_rises, sets, core_rises = [], [], [], []
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = PROBE.match(line)
            if m:
                if m.group(3):
                    sets.append((int(m.group(1)), m.group(3)))
                else:
                    core_rises.append(int(m.group(1)))
                continue
            m = TICK.match(line)
            if not m:
                continue
            tick, what = int(m.group(1)), m.group(2)
            if what.startswith('write to nvdla'):
                addr = int(what.split('addr ')[1].split(',')[0], 16) & 0xffff
                data = int(what.split('data ')[1].split()[0], 16)
                writes.append((tick, addr, data))
            elif what == 'intr rise':
                tb_rises.append(tick)
    return writes, tb_rises, sets, core_rises


def tick_offset(tb_rises, core_rises):
    """The constant t - 2c between each core_intr rise c and the testbench's next rise t."""
    offsets, j = set(), 0
    for c in core_rises:
        while j < len(tb_rises) and tb_rises[j] < 2 * c:
            j += 1
        if j == len(tb_rises):
            break
        offsets.add(tb_rises[j] - 2 * c)
        j += 1
    if len(offsets) != 1:
        sys.exit('rtl_network: core_intr rises and testbench rises do not pair at one offset: %s'
                 % sorted(offsets))
    return offsets.pop()


def layers(writes, sets, offset, regs):
    """[(kind, launch tick, done tick or None)] in launch order: the launches of one unit and
    group pair in order with the sets of that group's done bit that follow them.  An SDP
    that takes its input on the fly (FLYING_MODE ON) starts with the convolution feeding it,
    the k-th such SDP with the k-th convolution, as the model counts it."""
    group = {u: 0 for u in LAYER_UNITS}
    flying = [0, 0]
    done = {}
    for c, name in sets:
        done.setdefault(name, []).append(2 * c + offset)
    out, convs, fed = [], [], []
    for tick, addr, data in writes:
        unit, reg = regs.get(addr, (None, None))
        if reg == 'S_POINTER':
            group[unit] = data & 1
        elif reg == 'FEATURE_MODE':
            flying[group[unit]] = data & 1
        elif reg == 'OP_ENABLE' and data & 1:
            kind, bit = LAYER_UNITS[unit]
            queue = done.get(bit + str(group[unit]), [])
            while queue and queue[0] <= tick:
                queue.pop(0)
            out.append([kind, tick, queue.pop(0) if queue else None])
            if kind == 'CONV':
                convs.append(tick)
            elif kind == 'SDP' and flying[group[unit]]:
                fed.append(out[-1])
    for layer, conv in zip(fed, convs):
        layer[1] = max(layer[1], conv)
    return [tuple(layer) for layer in out]


def main():
    args = sys.argv[1:]
    config = 'nv_small'
    if args[:1] == ['--config'] and len(args) > 1:
        config, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    writes, tb_rises, sets, core_rises = read_log(args[0])
    if not core_rises or not sets:
        sys.exit('rtl_network: %s has no PROBE GLB lines (README step 8)' % args[0])
    offset = tick_offset(tb_rises, core_rises)
    got = layers(writes, sets, offset, unit_registers(config))
    if not got or any(done is None for _, _, done in got):
        missing = [k for k, _, done in got if done is None]
        sys.exit('rtl_network: %d layers never finished (%s)' % (len(missing), ' '.join(missing)))
    first = min(t for _, t, _ in got)
    last = max(d for _, _, d in got)
    print('network\t%d' % ((last - first) // 2))
    count = {}
    for kind, tick, done in got:
        k = count.get(kind, 0)
        count[kind] = k + 1
        print('%s#%d\t%d' % (kind, k, (done - tick) // 2))


if __name__ == '__main__':
    main()
