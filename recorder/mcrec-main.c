/* mcrec-main.c: mcrec, the recorder: `mcrec [options] -- command [args]` runs the
 * command and records what the machine does into a .mcz file (see mcrec(1)
 * and recorder/mcrec.c).  This file only turns the command line into a run. */
#include "rec.h"
#include "calibrate/calibrate.h"
#include "topo/topology.h"

int main(int argc, char **argv)
{
	rec_options o;
	char err[512];
	int rc = rec_options_parse(argc, argv, &o, err, sizeof err);
	if (rc == 1)
		return 0;
	if (rc == 2) {
		fprintf(stderr, "mcrec: %s\n", err);
		rec_options_free(&o);
		return 2;
	}
	rec_topology_env();
	if (o.calibrate && !o.list) {
		rc = rec_calibrate_run(stdout, o.quiet);
		if (rc || !o.argv[0]) {
			rec_options_free(&o);
			return rc;
		}
	}
	rc = o.list ? rec_listing_print(&o, stdout) : mcrec_run(&o);
	rec_options_free(&o);
	return rc;
}
