#!/usr/bin/env python3
"""Writes synthetic seeds for fuzz_decoders (valid pages of every encoding x
type, from small independent encoders written here) into the directory given.

Layout (see fuzz_decoders.c): sel, type_length, num_values u16,
dict_len u16, dict_count u16, schedule seed, dictionary bytes, page bytes.
sel = encoding_index * 8 + physical_type for pk_decoder; 80 RLE direct,
88/89 DELTA INT32/INT64 direct, 90 legacy BIT_PACKED."""
import os
import random
import struct
import sys

ENC = ['PLAIN', 'PLAIN_DICTIONARY', 'RLE', 'BIT_PACKED', 'DELTA_BINARY_PACKED',
       'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY', 'RLE_DICTIONARY',
       'BYTE_STREAM_SPLIT']
BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FLBA = range(8)
WIDTH = {INT32: 4, INT64: 8, INT96: 12, FLOAT: 4, DOUBLE: 8}


def uvarint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63)


def bitpack(values, bw):
    acc = 0
    for i, v in enumerate(values):
        acc |= (v & ((1 << bw) - 1)) << (i * bw)
    return acc.to_bytes((len(values) * bw + 7) // 8, 'little')


def rle_hybrid(values, bw):
    """One RLE run for a leading repeat, then bit-packed groups of 8."""
    out = bytearray()
    i = 0
    while i < len(values) and values[i] == values[0]:
        i += 1
    if i >= 8:
        out += uvarint(i << 1) + values[0].to_bytes((bw + 7) // 8, 'little')
    else:
        i = 0
    rest = values[i:]
    if rest:
        groups = (len(rest) + 7) // 8
        out += uvarint(groups << 1 | 1) + bitpack(rest + [0] * (groups * 8 - len(rest)), bw)
    return bytes(out)


def delta_binary_packed(values, bits):
    mask = (1 << bits) - 1
    out = bytearray(uvarint(128) + uvarint(4) + uvarint(len(values)))
    if not values:
        return bytes(out + uvarint(0))
    out += uvarint(zigzag(values[0]) & 0xFFFFFFFFFFFFFFFF)
    deltas = []
    for a, b in zip(values, values[1:]):
        d = (b - a) & mask
        if d >> (bits - 1):
            d -= 1 << bits
        deltas.append(d)
    for s in range(0, len(deltas), 128):
        block = deltas[s:s + 128]
        mn = min(block)
        out += uvarint(zigzag(mn) & 0xFFFFFFFFFFFFFFFF)
        minis = [block[k:k + 32] for k in range(0, len(block), 32)]
        widths = [max((v - mn).bit_length() for v in m) for m in minis]
        out += bytes(widths + [0] * (4 - len(widths)))
        for m, w in zip(minis, widths):
            out += bitpack([v - mn for v in m] + [0] * (32 - len(m)), w)
    return bytes(out)


def plain(t, vals, tl):
    if t == BOOLEAN:
        return bitpack(vals, 1)
    if t == BYTE_ARRAY:
        return b''.join(struct.pack('<I', len(v)) + v for v in vals)
    return b''.join(vals)


def values_for(t, n, tl, rng):
    if t == BOOLEAN:
        return [rng.randrange(2) for _ in range(n)]
    if t == BYTE_ARRAY:
        words = [b'', b'a', b'ab', b'abc', b'hello', b'hello world', b'\xff' * 9]
        return [rng.choice(words) for _ in range(n)]
    w = tl if t == FLBA else WIDTH[t]
    base = [bytes(rng.randrange(256) for _ in range(w)) for _ in range(4)]
    return [rng.choice(base) for _ in range(n)]


def seed(sel, tl, n, dict_bytes, dict_count, page, sched=0):
    return (bytes([sel, tl]) + struct.pack('<HHH', n, len(dict_bytes), dict_count) +
            bytes([sched]) + dict_bytes + page)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(42)
    seeds = {}
    for t in range(8):
        tl = 5 if t == FLBA else 0
        for n in (0, 1, 9, 300):
            vals = values_for(t, n, tl, rng)
            seeds['PLAIN-%d-%d' % (t, n)] = seed(0 * 8 + t, tl, n, b'', 0, plain(t, vals, tl))
            # Dictionary: PLAIN dictionary page + bit width + RLE indices.
            uniq = sorted(set(map(bytes, vals))) if t not in (BOOLEAN,) else [0, 1]
            if t == BOOLEAN:
                dvals, idx = [0, 1], vals
            else:
                dvals = uniq or [values_for(t, 1, tl, rng)[0]]
                idx = [dvals.index(v) for v in vals]
            bw = max(1, (len(dvals) - 1).bit_length())
            dpage = plain(t, dvals, tl)
            for e in (1, 7):
                seeds['%s-%d-%d' % (ENC[e], t, n)] = seed(
                    e * 8 + t, tl, n, dpage, len(dvals), bytes([bw]) + rle_hybrid(idx, bw), 3)
            if t == BOOLEAN:
                body = rle_hybrid(vals, 1)
                seeds['RLE-%d-%d' % (t, n)] = seed(2 * 8 + t, tl, n, b'', 0,
                                                    struct.pack('<I', len(body)) + body, 5)
            if t in (INT32, INT64):
                bits = 32 if t == INT32 else 64
                ints = [rng.randrange(-1000, 1000) for _ in range(n)]
                if n > 2:
                    ints[1] = -(1 << (bits - 1))
                    ints[2] = (1 << (bits - 1)) - 1
                seeds['DELTA_BINARY_PACKED-%d-%d' % (t, n)] = seed(
                    4 * 8 + t, tl, n, b'', 0, delta_binary_packed(ints, bits), 7)
            if t in (BYTE_ARRAY, FLBA):
                seeds['DELTA_LENGTH_BYTE_ARRAY-%d-%d' % (t, n)] = seed(
                    5 * 8 + t, tl, n, b'', 0,
                    delta_binary_packed([len(v) for v in vals], 32) + b''.join(vals), 9)
                pre, suf, prev = [], [], b''
                for v in vals:
                    p = 0
                    while p < min(len(v), len(prev)) and v[p] == prev[p]:
                        p += 1
                    pre.append(p)
                    suf.append(v[p:])
                    prev = v
                seeds['DELTA_BYTE_ARRAY-%d-%d' % (t, n)] = seed(
                    6 * 8 + t, tl, n, b'', 0,
                    delta_binary_packed(pre, 32) + delta_binary_packed([len(s) for s in suf], 32) +
                    b''.join(suf), 11)
            if t in (INT32, INT64, FLOAT, DOUBLE, FLBA):
                w = tl if t == FLBA else WIDTH[t]
                streams = b''.join(bytes(v[k] for v in vals) for k in range(w))
                seeds['BYTE_STREAM_SPLIT-%d-%d' % (t, n)] = seed(8 * 8 + t, tl, n, b'', 0,
                                                                  streams, 13)
    for bw in (0, 1, 3, 8, 17, 32):
        vals = [rng.randrange(1 << bw) if bw else 0 for _ in range(100)]
        seeds['rle-direct-%d' % bw] = seed(80, bw, len(vals), b'', 0, rle_hybrid(vals, bw), 17)
    for is64 in (0, 1):
        ints = [rng.randrange(-(1 << 20), 1 << 20) for _ in range(500)]
        seeds['delta-direct-%d' % is64] = seed(88 + is64, 0, 0, b'', 0,
                                               delta_binary_packed(ints, 64 if is64 else 32), 19)
    for bw in (1, 2, 5):
        vals = [rng.randrange(1 << bw) for _ in range(40)]
        packed = int(''.join(format(v, '0%db' % bw) for v in vals), 2)
        nbits = 40 * bw
        packed <<= (-nbits) % 8
        seeds['bitpacked-legacy-%d' % bw] = seed(90, bw, 40, b'', 0,
                                                 packed.to_bytes((nbits + 7) // 8, 'big'))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, 'seed-' + name), 'wb') as f:
            f.write(data)
    print('%d decoder seeds' % len(seeds))


main(sys.argv[1])
