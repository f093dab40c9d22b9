# Compares the register programming of two nvdlav1 .txn traces of the same
# network on nv_full: a reference made by NVIDIA's KMD (a virtual-platform
# trace: read_reg, write_reg, "until" for a poll) and dladbg's "export txn" of
# the same loadable.  Usage:
#   awk -f kmd_txn_compare.awk REFERENCE/input.txn EXPORT/input.txn
# Prints one line of figures and exits 0 when
#   - the writes are identical and in the same order, address registers
#     (named *ADDR* in the export) masked, each reference address always
#     standing for the same exported one;
#   - the KMD's reads (S_POINTER, S_STATUS, GLB.S_INTR_MASK, the CBUF flush
#     poll, ...) read the same registers in the same order with the same
#     values, except the CONSUMER bit of S_POINTER, which says how far the
#     hardware got and so depends on its timing (counted, not failed);
#   - every interrupt handler run has the KMD's shape (read S_INTR_MASK, read
#     S_INTR_STATUS, write back what it read, read both again), and each
#     interrupt bit was handled as many times in both traces.  How many bits
#     one handler run sees depends on timing, so the runs are compared by
#     bit, apart from the programming between them.
# "until A V" counts as a read of A that returned V; "wait" says only when.
# Lines the export adds for the RTL's sake ("(export: ...)": the mask and the
# read before each of its waits) are not the KMD's and are skipped.
# Otherwise prints what differs first and exits 1.
function hexval(s,    v, i, c) {
    s = tolower(s)
    sub(/^0x/, "", s)
    v = 0
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1))
        if (c == 0)
            return -1
        v = v * 16 + c - 1
    }
    return v
}
# a value as 8 hex digits (mawk prints numbers past 2^31 wrongly with %x)
function hex8(s) {
    s = tolower(s)
    sub(/^0x/, "", s)
    while (length(s) < 8)
        s = "0" s
    return "0x" s
}
function bit(v, b) {
    return int(v / (2 ^ b)) % 2
}
# one access of file f: kind (R or W), word address (low 16 bits), value
function add(f, kind, addr, value, line) {
    n[f]++
    K[f, n[f]] = kind
    A[f, n[f]] = hexval(addr) % 65536
    V[f, n[f]] = hexval(value)
    S[f, n[f]] = hex8(value)
    L[f, n[f]] = line
}
FNR == 1 { file++ }
index($0, "(export:") { next }
{
    text = $0
    name = ""
    if (index(text, "#")) {
        name = substr(text, index(text, "#") + 1)
        text = substr(text, 1, index(text, "#") - 1)
    }
    split(text, w, " ")
    if (w[1] == "write_reg")
        add(file, "W", w[2], w[3], FNR)
    else if (w[1] == "read_reg")
        add(file, "R", w[2], w[4], FNR)
    else if (w[1] == "until")
        add(file, "R", w[2], w[3], FNR)
    else
        next
    gsub(/^[ \t]+|[ \t]+$/, "", name)
    if (file == 2 && name != "")
        reg[hexval(w[2]) % 65536] = name
}
# The handler runs of file f become entries of H (their status) and leave
# the rest in P (programming).
function split_handlers(f,    i, m, h) {
    m = 0
    h = 0
    for (i = 1; i <= n[f]; i++) {
        if (K[f, i] == "R" && A[f, i] == MASK && K[f, i + 1] == "R" && A[f, i + 1] == STATUS) {
            if (!(K[f, i + 2] == "W" && A[f, i + 2] == STATUS && V[f, i + 2] == V[f, i + 1] &&
                  K[f, i + 3] == "R" && A[f, i + 3] == MASK && K[f, i + 4] == "R" &&
                  A[f, i + 4] == STATUS)) {
                printf "%s:%d: an interrupt handler that does not read S_INTR_MASK and S_INTR_STATUS, write the status back and read both again\n", FILENAME_OF[f], L[f, i + 1]
                bad = 1
                return
            }
            h++
            H[f, h] = V[f, i + 1]
            i += 4
            continue
        }
        if (A[f, i] == STATUS) {
            printf "%s:%d: GLB.S_INTR_STATUS accessed outside an interrupt handler\n", FILENAME_OF[f], L[f, i]
            bad = 1
            return
        }
        m++
        PK[f, m] = K[f, i]
        PA[f, m] = A[f, i]
        PV[f, m] = V[f, i]
        PS[f, m] = S[f, i]
        PL[f, m] = L[f, i]
    }
    np[f] = m
    nh[f] = h
}
function name_of(a) {
    return (a in reg) ? reg[a] : sprintf("word 0x%04x", a)
}
END {
    MASK = 1
    STATUS = 3
    FILENAME_OF[1] = ARGV[1]
    FILENAME_OF[2] = ARGV[2]
    split_handlers(1)
    split_handlers(2)
    if (bad)
        exit 1
    if (np[1] != np[2])
        printf "programming: %d accesses in %s, %d in %s\n", np[1], ARGV[1], np[2], ARGV[2]
    writes = reads = masked = consumer = 0
    for (i = 1; i <= np[1] && i <= np[2]; i++) {
        a = PA[1, i]
        where = sprintf("%s:%d and %s:%d", ARGV[1], PL[1, i], ARGV[2], PL[2, i])
        if (PK[1, i] != PK[2, i] || a != PA[2, i]) {
            printf "%s: %s %s, but %s %s\n", where, PK[1, i] == "W" ? "write of" : "read of", name_of(a), PK[2, i] == "W" ? "write of" : "read of", name_of(PA[2, i])
            exit 1
        }
        v1 = PV[1, i]
        v2 = PV[2, i]
        s1 = PS[1, i]
        s2 = PS[2, i]
        if (PK[1, i] == "W" && name_of(a) ~ /ADDR/) {
            if ((s1 in addr_map) && addr_map[s1] != s2) {
                printf "%s: %s: address %s stands for %s here, for %s before\n", where, name_of(a), s1, s2, addr_map[s1]
                exit 1
            }
            addr_map[s1] = s2
            masked++
        } else if (PK[1, i] == "R" && name_of(a) ~ /S_POINTER$/ && s1 != s2 &&
                   (v1 - bit(v1, 16) * 65536) == (v2 - bit(v2, 16) * 65536)) {
            consumer++
        } else if (s1 != s2) {
            printf "%s: %s %s: %s, but %s\n", where, PK[1, i] == "W" ? "write of" : "read of", name_of(a), s1, s2
            exit 1
        }
        if (PK[1, i] == "W")
            writes++
        else
            reads++
    }
    if (np[1] != np[2])
        exit 1
    for (b = 0; b < 32; b++) {
        c1 = c2 = 0
        for (h = 1; h <= nh[1]; h++)
            c1 += bit(H[1, h], b)
        for (h = 1; h <= nh[2]; h++)
            c2 += bit(H[2, h], b)
        if (c1 != c2) {
            printf "interrupt bit %d: handled %d times in %s, %d in %s\n", b, c1, ARGV[1], c2, ARGV[2]
            exit 1
        }
        bits += c1
    }
    printf "%d writes identical (%d addresses masked), %d KMD reads matched (%d by register only: S_POINTER.CONSUMER, timing), %d interrupt bits handled alike (%d handler runs in the reference, %d here)\n", writes, masked, reads + nh[1] * 4, consumer, bits, nh[1], nh[2]
}
