/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * measure.c - runs a command and prints its wall time and peak resident
 * memory: "SECONDS MAXRSS_KIB EXIT". Standard output of the command goes
 * to /dev/null unless -o FILE names a file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *out = "/dev/null";
	struct timespec t0, t1;
	struct rusage ru;
	int status, first = 1;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: measure [-o FILE] COMMAND [ARGS]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execvp(argv[first], argv + first);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("measure");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %ld %d\n", (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return 0;
}
