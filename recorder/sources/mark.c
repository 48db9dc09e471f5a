/* mark.c: the mark source — marks sent by the application (recorder/mcmark.h)
 * or by a shell script (the mcmark command) while mcrec records.
 *
 * probe() makes an AF_UNIX datagram socketpair and puts the number of the
 * child's end in the environment (MCMARK_FD) before the command is forked;
 * every tick read() drains the recorder's end without blocking and hands
 * each mark, stamped with the time the application made it, to the
 * recorder (rec_mark_post).  No streams: marks are their own blocks.
 * Datagram format: mark-wire.h.
 */
#include "../mcmark.h"
#include "../source.h"
#include "mark-wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct mark_priv {
	int rd, child_end;
};

static int src_mark_probe(rec_source *s, const rec_ctx *c)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return rec_unavailable(s, "socketpair failed", "check the open-file limit (ulimit -n)");
	struct mark_priv *p = malloc(sizeof *p);
	if (!p) {
		close(sv[0]), close(sv[1]);
		return rec_unavailable(s, "out of memory", "");
	}
	int rcv = 1 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFD, 0); /* the child's end survives exec */
	p->rd = sv[0];
	p->child_end = sv[1];
	char num[16];
	snprintf(num, sizeof num, "%d", sv[1]);
	setenv(MCMARK_ENV, num, 1);
	s->priv = p;
	return 0;
}

static int src_mark_streams(rec_source *s, const rec_ctx *c, rec_streams *out)
{
	s->on_request = "marks (no streams) sent by the command: 'mcmark TEXT' or mcmark.h";
	return 0;
}

static int src_mark_start(rec_source *s, const rec_ctx *c)
{
	struct mark_priv *p = s->priv;
	/* The child has its copy now; ours would only keep the socket alive. */
	if (c->child > 0 && p->child_end >= 0) {
		close(p->child_end);
		p->child_end = -1;
		unsetenv(MCMARK_ENV);
	}
	return 0;
}

static int src_mark_read(rec_source *s, mcz_value *v, uint8_t *present)
{
	struct mark_priv *p = s->priv;
	char buf[MCMARK_TEXT_MAX + 80];
	for (int i = 0; i < 4096; i++) {
		ssize_t n = recv(p->rd, buf, sizeof buf - 1, MSG_DONTWAIT);
		if (n < 0)
			break;
		buf[n] = '\0';
		mcz_mark_kind kind;
		int64_t t;
		uint32_t pid;
		char *text;
		if (src_mark_wire_parse(buf, &kind, &t, &pid, &text) == 0)
			rec_mark_post(t, kind, pid, text);
	}
	return 0;
}

static void src_mark_free(rec_source *s)
{
	struct mark_priv *p = s->priv;
	if (!p)
		return;
	close(p->rd);
	if (p->child_end >= 0)
		close(p->child_end);
	free(p);
	s->priv = NULL;
}

const rec_source_ops src_mark_ops = {
	"mark", "", src_mark_probe, src_mark_streams, src_mark_start,
	src_mark_read, NULL, src_mark_free, NULL,
};
