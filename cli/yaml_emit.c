/* cli/yaml_emit.c - not written yet. */
typedef int yaml_emit_placeholder;
