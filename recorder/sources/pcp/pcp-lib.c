/* pcp-lib.c: libpcp for mcrec, loaded with dlopen when a pmcd may answer.
 *
 * Why dlopen: libpcp brings eight more shared libraries (ssl, crypto, sasl,
 * systemd, gcrypt...), whose mapping and relocation would cost CPU at every
 * start of mcrec (bench-rec-overhead.sh), while the pcp source records only where a pmcd
 * answers, which on most hosts it does not.  So mcrec is not linked with
 * libpcp: the PMAPI functions that the recorder and libmczpcp's unit
 * mapping call are defined here, with libpcp's own names and prototypes
 * (<pcp/pmapi.h>), each forwarding to the real one, which is looked up in
 * libpcp.so.3 at the first call.
 *
 * The first call is the default host's pmNewContext(PM_CONTEXT_HOST,
 * "local:").  Before loading libpcp for it, this file asks what libpcp
 * would ask: pmcd's socket under PCP_RUN_DIR (from /etc/pcp.conf), then
 * TCP port 44321 on the loopback address.  When each is refused or absent,
 * there is no pmcd, and the call fails as libpcp's does there
 * (-ECONNREFUSED: "Connection refused") without libpcp.  Anything else --
 * an answer, another error, a slow connect, an environment or pcp.conf
 * that moves the socket or port (PCP_CONF, PCP_DIR, PCP_RUN_DIR,
 * PMCD_SOCKET, PMCD_PORT), another host -- loads libpcp and lets it decide,
 * as before.  A libpcp that cannot be loaded makes the pcp source
 * unavailable (PM_ERR_GENERIC) instead of mcrec unable to start.
 *
 * Programs linked with -lpcp (the unit tests) may take these definitions
 * too: dlopen then returns the libpcp already loaded, and dlsym on its
 * handle finds libpcp's own functions.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "pcp-metrics.h"

/* The PMAPI functions that mcrec uses, each as a pointer to libpcp's. */
/* clang-format off */
#define PCP_LIB_FNS(X)                                                                      \
	X(pmConvScale) X(pmDestroyContext) X(pmErrStr_r) X(pmExtractValue) X(pmFetch)       \
	X(pmFreeMetricSpec) X(pmFreeResult) X(pmGetInDom) X(pmLookupDesc) X(pmLookupInDom)   \
	X(pmLookupName) X(pmNameInDom) X(pmNewContext) X(pmParseMetricSpec)                 \
	X(pmReconnectContext) X(pmSemStr_r) X(pmTraversePMNS_r) X(pmTypeStr_r)              \
	X(pmUnitsStr_r) X(pmUseContext)
/* clang-format on */

static struct {
#define PCP_LIB_PTR(f) __typeof__(f) *f;
	PCP_LIB_FNS(PCP_LIB_PTR)
#undef PCP_LIB_PTR
} pcp_lib;
static pthread_once_t pcp_lib_once = PTHREAD_ONCE_INIT;
static atomic_int pcp_lib_ok;

static void pcp_lib_open(void)
{
	void *h = dlopen("libpcp.so.3", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
#define PCP_LIB_SYM(f)                                                                             \
	if (!(pcp_lib.f = (__typeof__(f) *)dlsym(h, #f)))                                          \
		return;
	PCP_LIB_FNS(PCP_LIB_SYM)
#undef PCP_LIB_SYM
	pcp_lib_ok = 1;
}

/* libpcp loaded (once, any thread): 0, or -1 when it cannot be. */
static int pcp_lib_load(void)
{
	pthread_once(&pcp_lib_once, pcp_lib_open);
	return pcp_lib_ok ? 0 : -1;
}

/* ---- is a local pmcd there at all? ---------------------------------------- */

/* connect() to addr, waiting 100 ms at most: 0 refused or absent (errno of
 * "nobody listens here"), 1 anything else. */
static int pcp_lib_maybe(int family, const void *addr, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return family == AF_INET6 && errno == EAFNOSUPPORT ? 0 : 1;
	int rc = connect(fd, addr, len), e = rc == 0 ? 0 : errno;
	if (rc != 0 && e == EINPROGRESS) {
		struct pollfd pf = {fd, POLLOUT, 0};
		socklen_t el = sizeof e;
		if (poll(&pf, 1, 100) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0)
			rc = e ? -1 : 0;
		else
			e = ETIMEDOUT;
	}
	close(fd);
	if (rc == 0)
		return 1;
	return !(e == ECONNREFUSED || e == ENOENT ||
		 (family == AF_INET6 && (e == EADDRNOTAVAIL || e == ENETUNREACH)));
}

/* PCP_RUN_DIR from /etc/pcp.conf into dir: 0, or -1 when it is not there
 * or the file moves pmcd's socket or port. */
static int pcp_lib_run_dir(char *dir, size_t len)
{
	char v[8];
	if (src_pcp_conf_value("PMCD_SOCKET", v, sizeof v) != -1 ||
	    src_pcp_conf_value("PMCD_PORT", v, sizeof v) != -1)
		return -1;
	return src_pcp_conf_value("PCP_RUN_DIR", dir, len) == 0 && dir[0] == '/' ? 0 : -1;
}

/* 1 when no pmcd can answer "local:" here (see the top), else 0. */
static int pcp_lib_no_local_pmcd(void)
{
	static const char *const moved[] = {"PCP_CONF", "PCP_DIR", "PCP_RUN_DIR", "PMCD_SOCKET",
					    "PMCD_PORT"};
	for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++)
		if (getenv(moved[i]))
			return 0;
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	char dir[256];
	if (pcp_lib_run_dir(dir, sizeof dir) != 0 ||
	    snprintf(un.sun_path, sizeof un.sun_path, "%s/pmcd.socket", dir) >=
		(int)sizeof un.sun_path)
		return 0;
	struct sockaddr_in in4 = {.sin_family = AF_INET,
				  .sin_port = htons(44321),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in6 in6 = {
	    .sin6_family = AF_INET6, .sin6_port = htons(44321), .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	return !pcp_lib_maybe(AF_UNIX, &un, sizeof un) &&
	       !pcp_lib_maybe(AF_INET, &in4, sizeof in4) &&
	       !pcp_lib_maybe(AF_INET6, &in6, sizeof in6);
}

/* ---- the PMAPI, forwarded ------------------------------------------------ */

int pmNewContext(int type, const char *name)
{
	if (!pcp_lib_ok && type == PM_CONTEXT_HOST && name && strcmp(name, "local:") == 0 &&
	    pcp_lib_no_local_pmcd())
		return -ECONNREFUSED;
	return pcp_lib_load() ? PM_ERR_GENERIC : pcp_lib.pmNewContext(type, name);
}

char *pmErrStr_r(int code, char *buf, int len)
{
	/* errno codes, as libpcp words them, without loading it for that */
	if (!pcp_lib_ok && code < 0 && code > -PM_ERR_BASE && len > 0) {
		snprintf(buf, (size_t)len, "%s", strerror(-code));
		return buf;
	}
	if (pcp_lib_load()) {
		snprintf(buf, (size_t)len, "PCP error %d (libpcp.so.3 cannot be loaded)", code);
		return buf;
	}
	return pcp_lib.pmErrStr_r(code, buf, len);
}

/* The rest need a context (or a descriptor from one): libpcp is loaded by
 * then, and a call without it fails as libpcp fails without a context. */
#define PCP_LIB_INT(f, params, args)                                                               \
	int f params                                                                               \
	{                                                                                          \
		return pcp_lib_load() ? PM_ERR_NOCONTEXT : pcp_lib.f args;                         \
	}
PCP_LIB_INT(pmConvScale,
	    (int type, const pmAtomValue *ival, const pmUnits *iunit, pmAtomValue *oval,
	     const pmUnits *ounit),
	    (type, ival, iunit, oval, ounit))
PCP_LIB_INT(pmDestroyContext, (int ctx), (ctx))
PCP_LIB_INT(pmExtractValue,
	    (int valfmt, const pmValue *ival, int itype, pmAtomValue *oval, int otype),
	    (valfmt, ival, itype, oval, otype))
PCP_LIB_INT(pmFetch, (int n, pmID *pmids, pmResult **result), (n, pmids, result))
PCP_LIB_INT(pmGetInDom, (pmInDom indom, int **inst, char ***names), (indom, inst, names))
PCP_LIB_INT(pmLookupDesc, (pmID pmid, pmDesc *desc), (pmid, desc))
PCP_LIB_INT(pmLookupInDom, (pmInDom indom, const char *name), (indom, name))
PCP_LIB_INT(pmLookupName, (int n, const char **names, pmID *pmids), (n, names, pmids))
PCP_LIB_INT(pmNameInDom, (pmInDom indom, int inst, char **name), (indom, inst, name))
PCP_LIB_INT(pmParseMetricSpec,
	    (const char *spec, int isarch, char *source, pmMetricSpec **rslt, char **errmsg),
	    (spec, isarch, source, rslt, errmsg))
PCP_LIB_INT(pmReconnectContext, (int ctx), (ctx))
PCP_LIB_INT(pmTraversePMNS_r, (const char *name, void (*func)(const char *, void *), void *closure),
	    (name, func, closure))
PCP_LIB_INT(pmUseContext, (int ctx), (ctx))
#undef PCP_LIB_INT

#define PCP_LIB_STR(f, type)                                                                       \
	char *f(type v, char *buf, int len)                                                        \
	{                                                                                          \
		if (pcp_lib_load()) {                                                              \
			snprintf(buf, (size_t)len, "?");                                           \
			return buf;                                                                \
		}                                                                                  \
		return pcp_lib.f(v, buf, len);                                                     \
	}
PCP_LIB_STR(pmSemStr_r, int)
PCP_LIB_STR(pmTypeStr_r, int)
PCP_LIB_STR(pmUnitsStr_r, const pmUnits *)
#undef PCP_LIB_STR

void pmFreeResult(pmResult *r)
{
	if (r && pcp_lib_load() == 0)
		pcp_lib.pmFreeResult(r);
}

void pmFreeMetricSpec(pmMetricSpec *m)
{
	if (m && pcp_lib_load() == 0)
		pcp_lib.pmFreeMetricSpec(m);
}
