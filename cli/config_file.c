/* cli/config_file.c - not written yet. */
typedef int config_file_placeholder;
