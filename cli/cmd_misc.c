/* cli/cmd_misc.c - not written yet. */
typedef int cmd_misc_placeholder;
