/* tool-import.c: placeholder for `mcz import` until the PCP importer lands
 * (the PCP engineer replaces this file with the real one). */
#include <stdio.h>

#include "tool.h"

int tool_import(int argc, char **argv)
{
	fputs("mcz import: not built yet\n", stderr);
	return 1;
}
