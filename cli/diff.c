/* cli/diff.c - not written yet. */
typedef int diff_placeholder;
