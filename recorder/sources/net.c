/* net.c: the net source — bytes and packets per network interface from
 * /proc/net/dev, and InfiniBand port counters from
 * /sys/class/infiniband/<dev>/ports/<port>/counters when there are any.
 *
 * Streams (counters, per interface, bound to the NIC's topology object when
 * hwloc found it): net.rx_bytes, net.tx_bytes, net.rx_packets,
 * net.tx_packets; ib.rx_bytes, ib.tx_bytes (port_*_data counts 4-byte
 * words: scale 4), ib.rx_packets, ib.tx_packets.  `-e net:eth0,net:ib0`
 * picks interfaces.  Node-wide: only the node's first recorder records it.
 * Files stay open and are re-read with pread at offset 0.  A slow source
 * (source.h, rec_source.period_ns): read every --slow-interval (500 ms by
 * default) and at the first and last rows, absent from the rows between;
 * a counter's delta then spans the time since its last read, exactly.
 * MCREC_SYSFS replaces /sys (tests use a fixture tree).
 */
#include "../source.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NET_MAX_IF = 256, NET_MAX_IB = 64, NET_IFNAME = 32 };

static const char *const net_ib_files[4] = {"port_rcv_data", "port_xmit_data", "port_rcv_packets",
					    "port_xmit_packets"};

struct net_priv {
	int dev_fd;
	char ifs[NET_MAX_IF][NET_IFNAME];
	int nif;
	int ib_fd[NET_MAX_IB][4];
	char ib[NET_MAX_IB][NET_IFNAME + 16];
	int nib;
	char buf[65536];
};

static int net_wanted(const rec_ctx *c, const char *name)
{
	if (!c->events)
		return 1;
	for (const char *const *e = c->events; *e; e++)
		if (strcmp(*e, name) == 0)
			return 1;
	return 0;
}

/* Interface names listed in /proc/net/dev (buf holds its text). */
static int net_list(struct net_priv *p)
{
	ssize_t n = pread(p->dev_fd, p->buf, sizeof p->buf - 1, 0);
	if (n <= 0)
		return -1;
	p->buf[n] = '\0';
	return 0;
}

static void net_find_ib(struct net_priv *p, const rec_ctx *c)
{
	const char *root = getenv("MCREC_SYSFS") ? getenv("MCREC_SYSFS") : "/sys";
	char dir[512], path[1024];
	snprintf(dir, sizeof dir, "%s/class/infiniband", root);
	DIR *d = opendir(dir);
	struct dirent *e, *pe;
	while (d && (e = readdir(d)) && p->nib < NET_MAX_IB) {
		if (e->d_name[0] == '.')
			continue;
		char ports[768];
		if (snprintf(ports, sizeof ports, "%s/%s/ports", dir, e->d_name) >= (int)sizeof ports)
			continue;
		DIR *pd = opendir(ports);
		while (pd && (pe = readdir(pd)) && p->nib < NET_MAX_IB) {
			if (pe->d_name[0] == '.')
				continue;
			char name[NET_IFNAME + 16];
			snprintf(name, sizeof name, "%.31s:%.8s", e->d_name, pe->d_name);
			if (!net_wanted(c, name) && !net_wanted(c, e->d_name))
				continue;
			int ok = 1;
			for (int k = 0; k < 4; k++) {
				int pl = snprintf(path, sizeof path, "%s/%s/counters/%s", ports,
						  pe->d_name, net_ib_files[k]);
				p->ib_fd[p->nib][k] =
					pl < (int)sizeof path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
				ok &= p->ib_fd[p->nib][k] >= 0;
			}
			if (!ok) {
				for (int k = 0; k < 4; k++)
					if (p->ib_fd[p->nib][k] >= 0)
						close(p->ib_fd[p->nib][k]);
				continue;
			}
			snprintf(p->ib[p->nib++], sizeof p->ib[0], "%s", name);
		}
		if (pd)
			closedir(pd);
	}
	if (d)
		closedir(d);
}

static int src_net_probe(rec_source *s, const rec_ctx *c)
{
	if (!c->node_streams)
		return rec_unavailable(s, "node-wide: recorded by the node's first rank only",
				       "nothing to do: the recorder of local rank 0 has it");
	int fd = open("/proc/net/dev", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rec_unavailable(s, "cannot read /proc/net/dev", "mount /proc");
	struct net_priv *p = calloc(1, sizeof *p);
	if (!p) {
		close(fd);
		return rec_unavailable(s, "out of memory", "");
	}
	p->dev_fd = fd;
	s->priv = p;
	s->period_ns = c->slow_ns;
	return 0;
}

static int net_add(rec_streams *out, const char *name, const char *native, const char *unit,
		   const char *inst, double scale, int32_t topo)
{
	mcz_stream_desc d = MCZ_STREAM_DESC_INIT;
	d.name = name;
	d.source = "net";
	d.native = native;
	d.unit = unit;
	d.instance = inst;
	d.kind = MCZ_COUNTER;
	d.type = MCZ_U64;
	d.scale = scale;
	d.topo = topo;
	return rec_streams_add(out, &d);
}

static int src_net_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	static const char *const names[4] = {"net.rx_bytes", "net.tx_bytes", "net.rx_packets",
					     "net.tx_packets"};
	static const char *const ibn[4] = {"ib.rx_bytes", "ib.tx_bytes", "ib.rx_packets",
					   "ib.tx_packets"};
	struct net_priv *p = s->priv;
	if (!(c->groups & REC_G_NET) && !c->events)
		return rec_unavailable(s, "group net not selected", "add -g net");
	if (net_list(p))
		return rec_unavailable(s, "cannot read /proc/net/dev", "mount /proc");
	for (char *line = strchr(p->buf, '\n'); line && p->nif < NET_MAX_IF; line = strchr(line, '\n')) {
		char name[NET_IFNAME];
		line++;
		const char *colon = strchr(line, ':'), *nl = strchr(line, '\n');
		if (!colon || (nl && colon > nl) || sscanf(line, " %31[^:]:", name) != 1)
			continue;
		if (net_wanted(c, name))
			snprintf(p->ifs[p->nif++], NET_IFNAME, "%s", name);
	}
	net_find_ib(p, c);
	if (c->events)
		for (const char *const *e = c->events; *e; e++) {
			int found = 0;
			for (int i = 0; i < p->nif; i++)
				found |= strcmp(p->ifs[i], *e) == 0;
			for (int i = 0; i < p->nib; i++)
				found |= strcmp(p->ib[i], *e) == 0 ||
					 strncmp(p->ib[i], *e, strlen(*e)) == 0;
			if (!found) {
				char why[300];
				snprintf(why, sizeof why, "no network interface '%s' (see /proc/net/dev, "
					 "/sys/class/infiniband)", *e);
				return rec_unavailable(s, why, "see 'mcrec --list' for the interfaces");
			}
		}
	for (int i = 0; i < p->nif; i++) {
		int32_t topo = c->topo_nic ? c->topo_nic(p->ifs[i]) : -1;
		if (topo < 0 && c->topo_machine)
			topo = c->topo_machine();
		for (int k = 0; k < 4; k++) {
			char native[96];
			snprintf(native, sizeof native, "net:/proc/net/dev %s %s", p->ifs[i],
				 names[k] + 4);
			if (net_add(out, names[k], native, k < 2 ? "B" : "packets", p->ifs[i], 1.0, topo))
				return rec_unavailable(s, "out of memory", "");
		}
	}
	for (int i = 0; i < p->nib; i++) {
		char dev[NET_IFNAME + 16];
		snprintf(dev, sizeof dev, "%s", p->ib[i]);
		dev[strcspn(dev, ":")] = '\0';
		int32_t topo = c->topo_nic ? c->topo_nic(dev) : -1;
		if (topo < 0 && c->topo_machine)
			topo = c->topo_machine();
		for (int k = 0; k < 4; k++) {
			char native[128];
			snprintf(native, sizeof native, "net:/sys/class/infiniband %s %s", p->ib[i],
				 net_ib_files[k]);
			if (net_add(out, ibn[k], native, k < 2 ? "B" : "packets", p->ib[i],
				    k < 2 ? 4.0 : 1.0, topo))
				return rec_unavailable(s, "out of memory", "");
		}
	}
	return 0;
}

static int src_net_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	struct net_priv *p = s->priv;
	if (p->nif && net_list(p) == 0) {
		for (char *line = strchr(p->buf, '\n'); line; line = strchr(line, '\n')) {
			line++;
			char *colon = strchr(line, ':');
			char *nl = strchr(line, '\n');
			if (!colon || (nl && colon > nl))
				continue;
			char *name = line;
			while (*name == ' ')
				name++;
			size_t len = (size_t)(colon - name);
			for (int i = 0; i < p->nif; i++) {
				if (strlen(p->ifs[i]) != len || strncmp(p->ifs[i], name, len) != 0)
					continue;
				/* rx bytes, packets, 6 more, tx bytes, packets: strtoull
				 * by hand, as sscanf costs more than the read itself */
				uint64_t f[10];
				char *at = colon + 1, *end;
				int k;
				for (k = 0; k < 10; k++, at = end) {
					f[k] = strtoull(at, &end, 10);
					if (end == at)
						break;
				}
				if (k == 10) {
					mcz_value *o = v + 4 * i;
					o[0].u = f[0], o[1].u = f[8], o[2].u = f[1], o[3].u = f[9];
					memset(present + 4 * i, 1, 4);
				}
				break;
			}
		}
	}
	for (int i = 0; i < p->nib; i++)
		for (int k = 0; k < 4; k++) {
			char b[64];
			ssize_t n = pread(p->ib_fd[i][k], b, sizeof b - 1, 0);
			size_t at = 4 * (size_t)p->nif + 4 * (size_t)i + (size_t)k;
			if (n > 0) {
				b[n] = '\0';
				v[at].u = strtoull(b, NULL, 10);
				present[at] = 1;
			}
		}
	return 0;
}

static void src_net_free(rec_source *s)
{
	struct net_priv *p = s->priv;
	if (!p)
		return;
	close(p->dev_fd);
	for (int i = 0; i < p->nib; i++)
		for (int k = 0; k < 4; k++)
			close(p->ib_fd[i][k]);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_net_ops = {
	"net", "net", src_net_probe, src_net_streams, NULL, src_net_read, NULL, src_net_free, NULL, NULL, NULL, NULL,
};
