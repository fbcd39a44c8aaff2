#!/usr/bin/env python3
"""Prints the constant tables of isa/isa_vmath.c (exp and ln for the vector unit).

Every constant is computed here with Python's decimal module at 80 significant digits and
converted to the nearest double (float(Decimal) rounds correctly); a value that needs more than
one double is split into a head and the nearest double to what remains. Run it and paste its
output over the generated section of isa/isa_vmath.c:

    python3 scripts/gen_vmath_tables.py
"""
from decimal import Decimal, getcontext, ROUND_FLOOR

getcontext().prec = 80

EXP_TABLE_BITS = 6        # 2^(j/64), j = 0..63
LN_SUBDIV = 128           # ln table: m in [0.75, 1.5) in steps of 1/128
LN_INV_QUANTUM = 2 ** 9   # each 1/c_j is kept to a multiple of 2^-9 (so m * inv is exact)
FACT_TERMS = 12           # 1/n!, n = 2..12, for the slow exp


def split(v, parts):
    """v as `parts` doubles: each the nearest double to what the earlier ones leave."""
    out = []
    for _ in range(parts):
        d = float(v)
        out.append(d)
        v -= Decimal(d)
    return out


def hexd(d):
    return float.hex(d)


def main():
    ln2 = Decimal(2).ln()
    n = 2 ** EXP_TABLE_BITS
    # ln2 / 64 in three parts, the first with 38 significant bits so that k * part is exact for
    # |k| < 2^15 (docs in isa_vmath.c)
    step = ln2 / n
    c1 = (step * 2 ** 44).to_integral_value(rounding=ROUND_FLOOR) / Decimal(2 ** 44)
    c2, c3 = split(step - c1, 2)
    print("/* ln(2) / 64 = EXP_L1 + EXP_L2 + EXP_L3; EXP_L1 has 38 significant bits */")
    print(f"#define EXP_L1 {hexd(float(c1))}")
    print(f"#define EXP_L2 {hexd(c2)}")
    print(f"#define EXP_L3 {hexd(c3)}")
    print(f"#define EXP_INV_STEP {hexd(float(n / ln2))} /* 64 / ln(2) */")
    print()
    print("/* 2^(j/64) as head + tail, j = 0..63 */")
    print("static const double exp2_table[64][2] = {")
    for j in range(n):
        v = Decimal(2) ** (Decimal(j) / n)
        hi, lo = split(v, 2)
        print(f"    {{{hexd(hi)}, {hexd(lo)}}},")
    print("};")
    print()
    print("/* 1/n! as head + tail, n = 0..12 */")
    print(f"static const double inv_fact[{FACT_TERMS + 1}][2] = {{")
    f = Decimal(1)
    for k in range(FACT_TERMS + 1):
        if k > 0:
            f *= k
        hi, lo = split(Decimal(1) / f, 2)
        print(f"    {{{hexd(hi)}, {hexd(lo)}}},")
    print("};")
    print()
    # ln(2) in three parts, the first with 45 significant bits so that e * part is exact for
    # |e| < 2^8
    h = (ln2 * 2 ** 45).to_integral_value(rounding=ROUND_FLOOR) / Decimal(2 ** 45)
    m, lo = split(ln2 - h, 2)
    print("/* ln(2) = LN2_HI + LN2_MID + LN2_LO; LN2_HI has 45 significant bits */")
    print(f"#define LN2_HI {hexd(float(h))}")
    print(f"#define LN2_MID {hexd(m)}")
    print(f"#define LN2_LO {hexd(lo)}")
    print()
    print("/* m in [0.75, 1.5), j = floor((m - 0.75) * 128): inv_j, a multiple of 2^-9 near the")
    print(" * inverse of the subinterval's centre (exactly 1 for the two around m = 1), and")
    print(" * -ln(inv_j) as head + tail */")
    count = 3 * LN_SUBDIV // 4
    print(f"static const double ln_table[{count}][3] = {{")
    for j in range(count):
        lo_m = Decimal(3) / 4 + Decimal(j) / LN_SUBDIV
        hi_m = lo_m + Decimal(1) / LN_SUBDIV
        if lo_m <= 1 <= hi_m:
            inv = Decimal(1)
        else:
            centre = (lo_m + hi_m) / 2
            inv = (LN_INV_QUANTUM / centre).to_integral_value() / LN_INV_QUANTUM
        assert float(inv) == inv
        neg_ln = -(inv.ln()) if inv != 1 else Decimal(0)
        a, b = split(neg_ln, 2)
        print(f"    {{{hexd(float(inv))}, {hexd(a)}, {hexd(b)}}},")
    print("};")


if __name__ == "__main__":
    main()
