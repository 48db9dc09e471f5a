/* papi-lib.c: libpapi for mcrec, loaded with dlopen at the papi source's
 * first call.
 *
 * Why dlopen: libpapi brings libpfm4, whose event tables need ~41 000
 * relocations: with it linked, every start of mcrec would spend CPU in
 * the dynamic loader and its page faults, while the papi source runs only
 * when -e names papi: events (or for --list).  So mcrec is not linked with
 * libpapi: the PAPI functions the papi source calls are defined here, with
 * PAPI's names and prototypes (<papi.h>), each forwarding to the real one,
 * looked up in the library at the first call: libpapi.so.7.0 (the SONAME
 * of the PAPI 7 that <papi.h> is), else libpapi.so;
 * PAPI_library_init(PAPI_VER_CURRENT) still refuses another PAPI version.
 * A libpapi that cannot be loaded makes the papi source unavailable
 * (PAPI_library_init fails, PAPI_strerror says why) instead of mcrec
 * unable to start.  Programs linked with -lpapi may take these definitions
 * too: dlsym on the handle finds libpapi's own functions.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <papi.h>

/* clang-format off */
#define PAPI_LIB_FNS(X)                                                                      \
	X(PAPI_add_event) X(PAPI_assign_eventset_component) X(PAPI_attach)                   \
	X(PAPI_cleanup_eventset) X(PAPI_create_eventset) X(PAPI_destroy_eventset)            \
	X(PAPI_detach) X(PAPI_enum_cmp_event) X(PAPI_event_name_to_code)                     \
	X(PAPI_get_component_index) X(PAPI_get_component_info) X(PAPI_get_event_component)   \
	X(PAPI_get_event_info) X(PAPI_get_hardware_info) X(PAPI_is_initialized)              \
	X(PAPI_library_init) X(PAPI_multiplex_init) X(PAPI_num_components) X(PAPI_read)      \
	X(PAPI_set_multiplex) X(PAPI_set_opt) X(PAPI_start) X(PAPI_stop) X(PAPI_strerror)
/* clang-format on */

static struct {
#define PAPI_LIB_PTR(f) __typeof__(f) *f;
	PAPI_LIB_FNS(PAPI_LIB_PTR)
#undef PAPI_LIB_PTR
} papi_lib;
static pthread_once_t papi_lib_once = PTHREAD_ONCE_INIT;
static atomic_int papi_lib_ok;

static void papi_lib_open(void)
{
	static const char *const names[] = {"libpapi.so.7.0", "libpapi.so"};
	void *h = NULL;
	for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++)
		h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
#define PAPI_LIB_SYM(f)                                                                            \
	if (!(papi_lib.f = (__typeof__(f) *)dlsym(h, #f)))                                         \
		return;
	PAPI_LIB_FNS(PAPI_LIB_SYM)
#undef PAPI_LIB_SYM
	papi_lib_ok = 1;
}

/* libpapi loaded (once, any thread): 0, or -1 when it cannot be. */
static int papi_lib_load(void)
{
	pthread_once(&papi_lib_once, papi_lib_open);
	return papi_lib_ok ? 0 : -1;
}

char *PAPI_strerror(int code)
{
	static char why[] = "libpapi cannot be loaded";
	return papi_lib_load() ? why : papi_lib.PAPI_strerror(code);
}

int PAPI_is_initialized(void)
{
	return papi_lib_load() ? PAPI_NOT_INITED : papi_lib.PAPI_is_initialized();
}

const PAPI_component_info_t *PAPI_get_component_info(int cidx)
{
	return papi_lib_load() ? NULL : papi_lib.PAPI_get_component_info(cidx);
}

const PAPI_hw_info_t *PAPI_get_hardware_info(void)
{
	return papi_lib_load() ? NULL : papi_lib.PAPI_get_hardware_info();
}

int PAPI_num_components(void)
{
	return papi_lib_load() ? 0 : papi_lib.PAPI_num_components();
}

/* The rest return a PAPI status: PAPI_ESYS when there is no libpapi. */
#define PAPI_LIB_INT(f, params, args)                                                              \
	int f params                                                                               \
	{                                                                                          \
		return papi_lib_load() ? PAPI_ESYS : papi_lib.f args;                              \
	}
PAPI_LIB_INT(PAPI_add_event, (int es, int ev), (es, ev))
PAPI_LIB_INT(PAPI_assign_eventset_component, (int es, int cidx), (es, cidx))
PAPI_LIB_INT(PAPI_attach, (int es, unsigned long tid), (es, tid))
PAPI_LIB_INT(PAPI_cleanup_eventset, (int es), (es))
PAPI_LIB_INT(PAPI_create_eventset, (int *es), (es))
PAPI_LIB_INT(PAPI_destroy_eventset, (int *es), (es))
PAPI_LIB_INT(PAPI_detach, (int es), (es))
PAPI_LIB_INT(PAPI_enum_cmp_event, (int *ev, int modifier, int cidx), (ev, modifier, cidx))
PAPI_LIB_INT(PAPI_event_name_to_code, (const char *in, int *out), (in, out))
PAPI_LIB_INT(PAPI_get_component_index, (const char *name), (name))
PAPI_LIB_INT(PAPI_get_event_component, (int ev), (ev))
PAPI_LIB_INT(PAPI_get_event_info, (int ev, PAPI_event_info_t *info), (ev, info))
PAPI_LIB_INT(PAPI_library_init, (int version), (version))
PAPI_LIB_INT(PAPI_multiplex_init, (void), ())
PAPI_LIB_INT(PAPI_read, (int es, long long *values), (es, values))
PAPI_LIB_INT(PAPI_set_multiplex, (int es), (es))
PAPI_LIB_INT(PAPI_set_opt, (int option, PAPI_option_t *ptr), (option, ptr))
PAPI_LIB_INT(PAPI_start, (int es), (es))
PAPI_LIB_INT(PAPI_stop, (int es, long long *values), (es, values))
#undef PAPI_LIB_INT
