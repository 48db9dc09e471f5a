#!/bin/sh
# mdict-gen.sh: writes mdict.c, the built-in zstd dictionary of the BUNDLE
# block (SPEC.md 5.8), from PCP's installed namespace and the words the
# writers and the PCP import put in every file.  The dictionary is part of
# the format: once released, its bytes never change (a new one would be a
# new dictionary number); this script says where they came from.  It is not
# trained on any archive: the metric names are those of the namespace PCP
# 6.0.3 installs (pminfo -n /var/lib/pcp/pmns/root), in the PMNS's order,
# then the vocabulary of descriptors and metadata, most common last (zstd
# reaches the end of a dictionary with the shortest offsets).
#   sh format/meta/mdict-gen.sh > format/meta/mdict.c
set -eu
words() {
	pminfo -n /var/lib/pcp/pmns/root
	cat <<'EOW'
count
counter
instant
discrete
byte
Kbyte
Mbyte
sec
millisec
microsec
nanosec
/ sec
/ millisec
/ microsec
/ nanosec
count / sec
byte / sec
Kbyte / sec
instructions
cycles
events
J
W
Hz
B/s
%
s
ns
us
ms
KiB
MiB
GiB
perf
papi
nvml
rapl
proc
mark
net
mcmark_count:
app.flops
app.bytes
kernel.all.load
1 minute
5 minute
15 minute
cpu0
cpu1
cpu2
cpu3
sda
sdb
nvme0n1
eth0
lo
 (cumulative value kept as a gauge)
 (unwrapped: stored = raw + k*2^32)
 (scale unknown: values as stored)
pcp: count, counter, U32
pcp: count, counter, U64
pcp: byte, counter, U64
pcp: Kbyte, counter, U64
pcp: millisec, counter, U64
pcp: byte, instant, U64
pcp: Kbyte, instant, U64
pcp: instant, FLOAT
pcp: instant, DOUBLE
pcp: instant, U64
pcp: instant, 64
pcp: instant, 32
pcp: discrete, U64
pcp: discrete, 32
pcp: instant, U32
pcp: discrete, U32
pcp:
roof.bw_triad_Bps
roof.bw_read_Bps
roof.bw_numa
roof.flops
roof.flops_1core
roof.flops_scalar
roof.flops_scalar_1core
roof.simd
roof.method
roof.calibrated
roof.host_key
interval_ns
kernel
cpu_model
command
cwd
user
rank
nranks
job
mcrec
import_warning
import_skipped
 metrics not numeric: pmcd.pmlogger.host, pmcd.pmlogger.archive
pcp_archive
/var/log/pcp/pmlogger/
/var/lib/pcp/
import_note
PCP values stored raw; stream scale converts PCP units to SI base units (bytes, seconds, counts); 32-bit counters unwrapped (stored = raw + k*2^32); floating-point counters stored as gauges; <mark> = gap mark
recorder
pmlogger (PCP archive v2), imported by mcz import
pmlogger (PCP archive v3), imported by mcz import
start_wall
timezone
UTC
host
localhost
wall_epoch_ns
pmcd.pmlogger.port
pcp: discrete, U32
EOW
}
# Bodies as the writers serialise them (SPEC.md 5.1, 5.3: varint lengths,
# fixed fields), so that a whole run of keys and values is one match: a
# META body of mcz import with made-up values, then STREAMS records of the
# descriptor kinds PCP's namespace is made of.  Lines: "s TEXT" a string,
# "u N" a varint, "x HEX" bytes.
templates() {
	cat <<'EOT'
u 8
s wall_epoch_ns
s 1700000000000000000
s host
s localhost
s timezone
s UTC
s start_wall
s 2023-11-14T22:13:20.000000Z
s recorder
s pmlogger (PCP archive v2), imported by mcz import
s pcp_archive
s /var/log/pcp/pmlogger/localhost/20231114
s import_note
s PCP values stored raw; stream scale converts PCP units to SI base units (bytes, seconds, counts); 32-bit counters unwrapped (stored = raw + k*2^32); floating-point counters stored as gauges; <mark> = gap mark
u 0
u 7
s kernel.all.load
s pcp
s pcp:kernel.all.load
s
s pcp: instant, FLOAT
s 1 minute
x 01 02 00 00 00 00 00 00 00 00 f0 3f 01
s mem.util.used
s pcp
s pcp:mem.util.used
s B
s pcp: Kbyte, instant, U64
s
x 01 00 00 00 00 00 00 00 00 00 90 40 01
s disk.dev.read_bytes
s pcp
s pcp:disk.dev.read_bytes
s B
s pcp: Kbyte, counter, U32 (unwrapped: stored = raw + k*2^32)
s sda
x 00 00 00 00 00 00 00 00 00 00 90 40 01
s kernel.all.cpu.user
s pcp
s pcp:kernel.all.cpu.user
s s
s pcp: millisec, counter, U64
s
x 00 00 00 00 fc a9 f1 d2 4d 62 50 3f 01
s network.interface.in.bytes
s pcp
s pcp:network.interface.in.bytes
s B
s pcp: byte, counter, U64
s eth0
x 00 00 00 00 00 00 00 00 00 00 f0 3f 01
s disk.dev.read
s pcp
s pcp:disk.dev.read
s count
s pcp: count, counter, U32 (unwrapped: stored = raw + k*2^32)
s sda
x 00 00 00 00 00 00 00 00 00 00 f0 3f 01
s pmcd.pmlogger.port
s pcp
s pcp:pmcd.pmlogger.port
s
s pcp: discrete, U32
s 12345
x 01 00 00 00 00 00 00 00 00 00 f0 3f 01
EOT
}

# Bytes (from templates) as C string pieces: printable ASCII as is (but
# quote, backslash and '?', against trigraphs), the rest in octal.
cstring() {
	awk '
	function uv(n,   b) { do { b = n % 128; n = int(n / 128); out[no++] = (n ? b + 128 : b) } while (n) }
	function hex(h,   i, v) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
	BEGIN { for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i }
	/^s/ { t = length($0) > 2 ? substr($0, 3) : ""; uv(length(t)); for (i = 1; i <= length(t); i++) out[no++] = ord[substr(t, i, 1)] }
	/^u / { uv($2 + 0) }
	/^x / { for (i = 2; i <= NF; i++) out[no++] = hex($i) }
	END {
		line = "\t\""
		for (i = 0; i < no; i++) {
			c = out[i]
			if (c >= 32 && c < 127 && c != 34 && c != 92 && c != 63) line = line sprintf("%c", c)
			else line = line sprintf("\\%03o", c)
			if (length(line) > 70) { print line "\""; line = "\t\"" }
		}
		print line "\""
	}'
}

cat <<'H'
/* mdict.c: the built-in zstd dictionary number 1 of BUNDLE blocks (SPEC.md
 * 5.8), raw content: PCP's installed metric namespace and the words of
 * descriptors and metadata.  Generated by mdict-gen.sh; normative: its
 * bytes never change (SPEC.md gives its length and CRC-32).
 */
#include "internal.h"

static const char mdict_text[] =
H
words | sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/\t"&\\n"/'
templates | cstring
cat <<'T'
	;

const uint8_t *mcz_mdict(size_t *len)
{
	*len = sizeof mdict_text - 1;
	return (const uint8_t *)mdict_text;
}
T
