/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml_floor.c - the benchmark's floor for the CLI: a libyaml pass over the
 * same bytes that only pulls events (no document is built, nothing is
 * written). gpumend migrate cannot be faster than this.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

int main(int argc, char **argv)
{
	yaml_parser_t parser;
	yaml_event_t event;
	struct stat st;
	unsigned long events = 0;
	void *text;
	int fd, done = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: yaml_floor FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 2;
	}
	text = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (text == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	madvise(text, (size_t)st.st_size, MADV_SEQUENTIAL);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, text, (size_t)st.st_size);
	while (!done) {
		if (!yaml_parser_parse(&parser, &event)) {
			fprintf(stderr, "parse error: %s\n", parser.problem);
			return 1;
		}
		done = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
		events++;
	}
	yaml_parser_delete(&parser);
	printf("%lu events\n", events);
	return 0;
}
