/* keys.c: the key bindings, as data.
 *
 * One table maps keys to actions; the help screen, the e2e tests and any
 * future remapping read it.  Keys follow what people already know: arrows
 * and hjkl, + and - to zoom, / to search, q to quit, Tab to switch view
 * (htop, less, vim).
 */
#include <stdio.h>
#include <string.h>

#include "keys.h"

const vw_binding vw_keys_table[] = {
	{'q', VW_ACT_QUIT},
	{'Q', VW_ACT_QUIT},
	{'?', VW_ACT_HELP},
	{VW_KEY_F1, VW_ACT_HELP},
	{VW_KEY_TAB, VW_ACT_NEXT_VIEW},
	{VW_KEY_BTAB, VW_ACT_PREV_VIEW},
	{VW_KEY_LEFT, VW_ACT_LEFT},
	{'h', VW_ACT_LEFT},
	{VW_KEY_RIGHT, VW_ACT_RIGHT},
	{'l', VW_ACT_RIGHT},
	{VW_KEY_UP, VW_ACT_UP},
	{'k', VW_ACT_UP},
	{VW_KEY_DOWN, VW_ACT_DOWN},
	{'j', VW_ACT_DOWN},
	{VW_KEY_PPAGE, VW_ACT_PAGE_LEFT},
	{VW_KEY_NPAGE, VW_ACT_PAGE_RIGHT},
	{VW_CTRL('u'), VW_ACT_PAGE_UP},
	{VW_CTRL('d'), VW_ACT_PAGE_DOWN},
	{VW_KEY_HOME, VW_ACT_HOME},
	{'g', VW_ACT_HOME},
	{VW_KEY_END, VW_ACT_END},
	{'G', VW_ACT_END},
	{'F', VW_ACT_END}, /* less +F: to the end, and follow it while it grows */
	{',', VW_ACT_CURSOR_LEFT},
	{'.', VW_ACT_CURSOR_RIGHT},
	{VW_KEY_SLEFT, VW_ACT_SEL_LEFT},
	{VW_KEY_SRIGHT, VW_ACT_SEL_RIGHT},
	{'+', VW_ACT_ZOOM_IN},
	{'=', VW_ACT_ZOOM_IN},
	{'-', VW_ACT_ZOOM_OUT},
	{'_', VW_ACT_ZOOM_OUT},
	{'0', VW_ACT_RESET},
	{'z', VW_ACT_ZOOM_SEL},
	{VW_KEY_ENTER, VW_ACT_ENTER},
	{VW_KEY_ESC, VW_ACT_BACK},
	{VW_KEY_BACKSPACE, VW_ACT_BACK},
	{'/', VW_ACT_FILTER},
	{'n', VW_ACT_NEXT_PHASE},
	{'p', VW_ACT_PREV_PHASE},
	{'s', VW_ACT_SORT},
	{'m', VW_ACT_METRIC},
	{'L', VW_ACT_LAYOUT},
	{'R', VW_ACT_FOLD},
	{'f', VW_ACT_FLAME},
	{VW_KEY_MOUSE, VW_ACT_MOUSE},
};
const size_t vw_keys_count = sizeof vw_keys_table / sizeof vw_keys_table[0];

static const struct {
	int key;
	const char *name;
} names[] = {
	{VW_KEY_UP, "Up"},	 {VW_KEY_DOWN, "Down"},	      {VW_KEY_LEFT, "Left"},
	{VW_KEY_RIGHT, "Right"}, {VW_KEY_SLEFT, "S-Left"},    {VW_KEY_SRIGHT, "S-Right"},
	{VW_KEY_PPAGE, "PgUp"},	 {VW_KEY_NPAGE, "PgDn"},      {VW_KEY_HOME, "Home"},
	{VW_KEY_END, "End"},	 {VW_KEY_ENTER, "Enter"},     {VW_KEY_ESC, "Esc"},
	{VW_KEY_BACKSPACE, "BS"}, {VW_KEY_TAB, "Tab"},	      {VW_KEY_BTAB, "S-Tab"},
	{VW_KEY_F1, "F1"},	 {VW_KEY_RESIZE, "Resize"},   {VW_KEY_MOUSE, "Mouse"},
	{' ', "Space"},
};

vw_action vw_keys_action(int key)
{
	for (size_t i = 0; i < vw_keys_count; i++)
		if (vw_keys_table[i].key == key)
			return vw_keys_table[i].act;
	return VW_ACT_NONE;
}

const char *vw_keys_name(int key, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].key == key) {
			snprintf(buf, len, "%s", names[i].name);
			return buf;
		}
	if (key > 0 && key < 0x20)
		snprintf(buf, len, "Ctrl-%c", key + 0x60);
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, len, "%c", key);
	else
		snprintf(buf, len, "#%x", (unsigned)key);
	return buf;
}

int vw_keys_parse(const char *name)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].key;
	if (strncmp(name, "Ctrl-", 5) == 0 && name[5] >= 'a' && name[5] <= 'z' && !name[6])
		return VW_CTRL(name[5]);
	if (name[0] > 0x20 && name[0] < 0x7f && !name[1])
		return name[0];
	return -1;
}
