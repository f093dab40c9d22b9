#!/bin/sh
# Editing registers in place: Enter on a register opens an editor over its
# value; Enter writes it with the console command "reg UNIT.REG = VALUE"
# (echoed, so it is an ordinary traced CSB write) and the pane shows the new
# value marked as changed.  A field edits the same way.  A typed poke in the
# console shows in the pane too.
. "$(dirname "$0")/lib.inc"

tui_start
# a register without groups: GLB.S_INTR_MASK (the pane shows GLB before any layer)
keys 2 /
type_text S_INTR_MASK
keys Enter
wait_for '││. S_INTR_MASK  *0x00000000'
keys Enter
wait_for 'Enter: write the value'
keys C-u
type_text 0x00030000
keys Enter
wait_for '││\* S_INTR_MASK  *0x00030000'
console_has '(dladbg) reg GLB.S_INTR_MASK = 0x00030000 '
console_has 'GLB.S_INTR_MASK: 0x00000000 -> 0x00030000 '

# a D_ register of a unit's producer group, then one of its fields
keys /
type_text CDMA.D_DATAIN_SIZE_0
keys Enter
wait_for '2 Registers CDMA group 0 (pinned; producer 0'
wait_for '││. D_DATAIN_SIZE_0  *0x00000000'
keys Enter C-u
type_text 0x00070009
keys Enter
wait_for '││\* D_DATAIN_SIZE_0  *0x00070009 .*DATAIN_WIDTH=9 DATAIN_HEIGHT=7'
console_has '(dladbg) reg CDMA.D_DATAIN_SIZE_0@0 = 0x00070009'
keys j # the first field, DATAIN_WIDTH
keys Enter C-u
type_text 12
keys Enter
wait_for '││\* D_DATAIN_SIZE_0  *0x0007000c'
console_has '(dladbg) reg CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH@0 = 12'
wait_for '││\*  *DATAIN_WIDTH  *\[12:0\]  *= 12 (0xc)'

# Esc cancels an edit: nothing is written
keys k Enter C-u
type_text 0x1
keys Escape
sync_ui
expect_no_screen 'reg CDMA.D_DATAIN_SIZE_0@0 = 0x1 '
expect_screen '││. D_DATAIN_SIZE_0  *0x0007000c'

# read-only registers are not edited
keys Home Enter
wait_for 'S_STATUS is read-only'

# a poke typed in the console shows in the pane
keys :
type_text 'reg CDMA.D_DATAIN_SIZE_1 = 0x21'
keys Enter Escape
wait_for '││\* D_DATAIN_SIZE_1  *0x00000021'

quit_now
