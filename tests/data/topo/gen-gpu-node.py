#!/usr/bin/env python3
# gen-gpu-node.py: writes gpu-node.xml, the hwloc XML fixture of a GPU node
# (hwloc synthetic descriptions cannot hold I/O devices, so this one starts
# from lstopo's XML export of a synthetic CPU tree and adds PCI functions as
# hwloc 2.9 exports them on a real DGX-like node):
#   2 packages x (NUMA 64 GiB, L3 32 MiB, 4 x (L2, L1d, core, 2 PUs));
#   package 0: BMC VGA (ASPEED, DRM card0 only: must NOT count as a GPU),
#              ConnectX InfiniBand mlx5_0/ib0, Intel eth0, 4 NVIDIA H100;
#   package 1: 4 NVIDIA H100, ConnectX mlx5_1/ib1.
# Regenerate: python3 gen-gpu-node.py > gpu-node.xml  (needs lstopo-no-graphics)
import subprocess, sys
import xml.etree.ElementTree as ET

SYN = ("pack:2 [numa(memory=64GiB)] l3:1(size=32MiB) l2:4(size=1MiB) "
       "l1:1(size=48KiB) core:1 pu:2")
xml = subprocess.run(["lstopo-no-graphics", "--input", SYN, "--of", "xml"],
                     check=True, capture_output=True, text=True).stdout
root = ET.fromstring(xml.split("\n", 2)[2])  # drop the prolog and DOCTYPE
gp = [1000]

def obj(parent, typ, **attrs):
    gp[0] += 1
    e = ET.SubElement(parent, "object", type=typ, gp_index=str(gp[0]))
    for k, v in attrs.items():
        e.set(k, v)
    return e

def info(e, name, value):
    ET.SubElement(e, "info", name=name, value=value)

def pci(bridge, busid, cls, vendor, device):
    return obj(bridge, "PCIDev", pci_busid=busid,
               pci_type="%s [%s:%s] [%s:0000] a1" % (cls, vendor, device, vendor),
               pci_link_speed="31.507692")

def osdev(dev, name, t):
    return obj(dev, "OSDev", name=name, osdev_type=str(t))

def h100(bridge, bus, k):
    d = pci(bridge, "0000:%02x:00.0" % bus, "0302", "10de", "2330")
    info(d, "PCIVendor", "NVIDIA Corporation")
    info(d, "PCIDevice", "GH100 [H100 SXM5 80GB]")
    osdev(d, "card%d" % (k + 1), 1)
    osdev(d, "renderD%d" % (128 + k), 1)
    n = osdev(d, "nvml%d" % k, 1)
    info(n, "Backend", "NVML")
    info(n, "GPUVendor", "NVIDIA Corporation")
    info(n, "GPUModel", "NVIDIA H100 80GB HBM3")
    c = osdev(d, "cuda%d" % k, 5)
    info(c, "CoProcType", "CUDA")
    info(c, "GPUModel", "NVIDIA H100 80GB HBM3")
    info(c, "CUDAGlobalMemorySize", str(80 * 1024 * 1024))  # KiB

def ib(bridge, bus, k):
    d = pci(bridge, "0000:%02x:00.0" % bus, "0207", "15b3", "101b")
    info(d, "PCIDevice", "MT28908 Family [ConnectX-6]")
    osdev(d, "ib%d" % k, 2)
    osdev(d, "mlx5_%d" % k, 3)

packs = [e for e in root.iter("object") if e.get("type") == "Package"]
b0 = obj(packs[0], "Bridge", bridge_type="0-1", depth="0", bridge_pci="0000:[00-4f]")
vga = pci(b0, "0000:02:00.0", "0300", "1a03", "2000")
info(vga, "PCIDevice", "ASPEED Graphics Family")
osdev(vga, "card0", 1)
ib(b0, 0x0c, 0)
eth = pci(b0, "0000:0d:00.0", "0200", "8086", "1521")
osdev(eth, "eth0", 2)
for k, bus in enumerate([0x17, 0x2a, 0x3d, 0x4e]):
    h100(b0, bus, k)
b1 = obj(packs[1], "Bridge", bridge_type="0-1", depth="0", bridge_pci="0000:[80-ff]")
for k, bus in enumerate([0x9a, 0xab, 0xba, 0xdb]):
    h100(b1, bus, 4 + k)
ib(b1, 0xe1, 1)

ET.indent(root)
sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
sys.stdout.write(ET.tostring(root, encoding="unicode") + "\n")
