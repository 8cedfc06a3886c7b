/*
 * files.c - reading inputs, walking directories, atomic in-place writes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "msg.h"

int input_read(const char *path, size_t max_bytes, struct input *in)
{
	int is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct buf b;
	char chunk[65536];
	ssize_t got;

	memset(in, 0, sizeof(*in));
	if (fd < 0) {
		msg_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		msg_error("cannot stat '%s': %s", path, strerror(errno));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		msg_error("'%s' is a directory", path);
		goto out_close;
	}
	buf_init(&b, max_bytes);
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    buf_grow(&b, (size_t)st.st_size) != 0) {
		msg_error("'%s' is too large (%lld bytes)", path,
			  (long long)st.st_size);
		goto out_close;
	}
	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			msg_error("cannot read '%s': %s", path, strerror(errno));
			buf_free(&b);
			goto out_close;
		}
		if (buf_append(&b, chunk, (size_t)got) != 0) {
			msg_error("'%s' is too large (more than %zu bytes)", path,
				  max_bytes);
			buf_free(&b);
			goto out_close;
		}
	}
	if (!is_stdin)
		close(fd);
	in->text = buf_detach(&b, &in->len);
	in->name = strdup(is_stdin ? "<stdin>" : path);
	in->path = is_stdin ? NULL : strdup(path);
	in->mode = st.st_mode & 07777;
	if (!in->text || !in->name || (!is_stdin && !in->path)) {
		msg_error("out of memory");
		input_free(in);
		return -1;
	}
	return 0;
out_close:
	if (!is_stdin)
		close(fd);
	return -1;
}

void input_free(struct input *in)
{
	if (!in)
		return;
	free(in->name);
	free(in->path);
	free(in->text);
	memset(in, 0, sizeof(*in));
}

static int has_manifest_suffix(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

struct visited {
	dev_t *dev;
	ino_t *ino;
	size_t n, cap;
};

static int visited_add(struct visited *v, const struct stat *st)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->dev[i] == st->st_dev && v->ino[i] == st->st_ino)
			return 1;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		dev_t *dev = realloc(v->dev, cap * sizeof(*dev));
		ino_t *ino;

		if (!dev)
			return -1;
		v->dev = dev;
		ino = realloc(v->ino, cap * sizeof(*ino));
		if (!ino)
			return -1;
		v->ino = ino;
		v->cap = cap;
	}
	v->dev[v->n] = st->st_dev;
	v->ino[v->n] = st->st_ino;
	v->n++;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir(const char *dir, struct visited *v, path_fn fn, void *arg,
		    int *errors, int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (depth > 64) {
		msg_error("'%s': directories nested too deeply", dir);
		(*errors)++;
		return 0;
	}
	d = opendir(dir);
	if (!d) {
		msg_error("cannot open directory '%s': %s", dir, strerror(errno));
		(*errors)++;
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue; /* ., .., and hidden files such as .git */
		if (n == cap) {
			char **grown;

			cap = cap ? cap * 2 : 32;
			grown = realloc(names, cap * sizeof(*grown));
			if (!grown) {
				rc = -1;
				break;
			}
			names = grown;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		msg_error("out of memory");
		goto out_free;
	}
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		char *path = malloc(strlen(dir) + strlen(names[i]) + 2);
		int seen;

		if (!path) {
			rc = -1;
			break;
		}
		sprintf(path, "%s%s%s", dir,
			dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		if (stat(path, &st) != 0) {
			msg_error("cannot stat '%s': %s", path, strerror(errno));
			(*errors)++;
		} else if (S_ISDIR(st.st_mode)) {
			seen = visited_add(v, &st);
			if (seen < 0)
				rc = -1;
			else if (!seen)
				rc = walk_dir(path, v, fn, arg, errors, depth + 1);
		} else if (S_ISREG(st.st_mode) && has_manifest_suffix(names[i])) {
			rc = fn(arg, path);
		}
		free(path);
	}
out_free:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int paths_walk(char **paths, int n, path_fn fn, void *arg, int *errors)
{
	struct visited v = { 0 };
	int rc = 0;

	if (n == 0)
		return fn(arg, "-");
	for (int i = 0; rc == 0 && i < n; i++) {
		struct stat st;

		if (strcmp(paths[i], "-") == 0) {
			rc = fn(arg, "-");
			continue;
		}
		if (stat(paths[i], &st) != 0) {
			msg_error("cannot open '%s': %s", paths[i],
				  strerror(errno));
			(*errors)++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (visited_add(&v, &st) == 0)
				rc = walk_dir(paths[i], &v, fn, arg, errors, 0);
		} else {
			rc = fn(arg, paths[i]);
		}
	}
	free(v.dev);
	free(v.ino);
	return rc;
}

int file_write_atomic(const char *path, const char *data, size_t len,
		      mode_t mode)
{
	char real[PATH_MAX], *tmp, *slash, *dir;
	int fd, dfd, saved;

	/* through a symlink, the file it points to is replaced */
	if (!realpath(path, real)) {
		msg_error("cannot resolve '%s': %s", path, strerror(errno));
		return -1;
	}
	tmp = malloc(strlen(real) + 32);
	dir = strdup(real);
	if (!tmp || !dir) {
		free(tmp);
		free(dir);
		msg_error("out of memory");
		return -1;
	}
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	sprintf(tmp, "%s.gpumend-XXXXXX", real);
	fd = mkstemp(tmp);
	if (fd < 0) {
		msg_error("cannot write '%s': cannot create a temporary file: %s",
			  path, strerror(errno));
		goto out_free;
	}
	if (buf_write_all(fd, data, len) != 0 || fsync(fd) != 0 ||
	    fchmod(fd, mode) != 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		msg_error("cannot write '%s': %s (the file is unchanged)", path,
			  strerror(saved));
		goto out_free;
	}
	if (close(fd) != 0 || rename(tmp, real) != 0) {
		saved = errno;
		unlink(tmp);
		msg_error("cannot write '%s': %s (the file is unchanged)", path,
			  strerror(saved));
		goto out_free;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(dir);
	return 0;
out_free:
	free(tmp);
	free(dir);
	return -1;
}
