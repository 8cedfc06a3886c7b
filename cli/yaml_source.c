/* cli/yaml_source.c - not written yet. */
typedef int yaml_source_placeholder;
