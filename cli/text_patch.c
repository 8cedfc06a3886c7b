/* cli/text_patch.c - not written yet. */
typedef int text_patch_placeholder;
