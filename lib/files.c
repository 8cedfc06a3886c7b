/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.c - reading inputs, atomic in-place writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "files.h"
#include "msg.h"
#include "utf16.h"

/* ------------------------------------------------------------------ */
/* The SIGBUS guard                                                    */

/*
 * A mapped file that another program truncates while it is read raises
 * SIGBUS on the first page past its new end. The guard maps zeros there
 * instead, and notes it: the read goes on (on bytes that are garbage), and
 * input_changed() then refuses the file. Inputs are read one at a time;
 * a few slots are plenty.
 */
#define GUARD_SLOTS 4

static struct {
	char *start;
	size_t len;
	volatile sig_atomic_t faulted;
} guard[GUARD_SLOTS];
static long guard_page;

static void guard_handler(int sig, siginfo_t *info, void *context)
{
	char *at = info->si_addr;

	(void)context;
	for (int i = 0; i < GUARD_SLOTS; i++) {
		char *page;

		if (!guard[i].start || at < guard[i].start ||
		    at >= guard[i].start + guard[i].len)
			continue;
		page = guard[i].start +
		       (size_t)(at - guard[i].start) / (size_t)guard_page *
		       (size_t)guard_page;
		/* zeros from here to the end: the fault is not raised again */
		if (mmap(page, (size_t)(guard[i].start + guard[i].len - page),
			 PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			break;
		guard[i].faulted = 1;
		return;
	}
	/* not a mapped input: what SIGBUS does anyway */
	signal(sig, SIG_DFL);
}

/* Guards the mapping text[0..len); returns its slot, or -1. */
static int guard_add(char *text, size_t len)
{
	static int installed;

	if (!installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = guard_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		guard_page = sysconf(_SC_PAGESIZE);
		if (guard_page <= 0 || sigaction(SIGBUS, &sa, NULL) != 0)
			return -1;
		installed = 1;
	}
	for (int i = 0; i < GUARD_SLOTS; i++) {
		if (guard[i].start)
			continue;
		guard[i].faulted = 0;
		guard[i].len = len;
		guard[i].start = text;
		return i;
	}
	return -1;
}

int input_changed(struct input *in)
{
	struct stat now;
	int changed;

	if (in->fd < 0 || in->changed)
		return in->changed;
	changed = (in->guard >= 0 && guard[in->guard].faulted) ||
		  fstat(in->fd, &now) != 0 || now.st_size != in->st.st_size ||
		  now.st_mtim.tv_sec != in->st.st_mtim.tv_sec ||
		  now.st_mtim.tv_nsec != in->st.st_mtim.tv_nsec ||
		  now.st_ctim.tv_sec != in->st.st_ctim.tv_sec ||
		  now.st_ctim.tv_nsec != in->st.st_ctim.tv_nsec;
	if (changed)
		msg_error("'%s' changed while it was read (truncated or rewritten); left as it is, run again",
			  in->name);
	in->changed = changed;
	return changed;
}

/* Says why `in` cannot be read, and keeps it in in->why (a finding's
 * message). */
static void input_fail(struct input *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void input_fail(struct input *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->why, sizeof(in->why), fmt, ap);
	va_end(ap);
	msg_error("%s", in->why);
}

/*
 * A text in UTF-16 with a byte order mark is turned into UTF-8 (its mark
 * into UTF-8's), as kubectl reads it; 0, or -1 (said) when it does not
 * decode.
 */
static int input_from_utf16(struct input *in)
{
	enum utf16_order order = utf16_detect(in->text, in->len);
	struct buf utf8;
	size_t bad_at = 0;

	if (order == UTF16_NONE)
		return 0;
	buf_init(&utf8, 0);
	if (utf16_to_utf8(in->text, in->len, order, &utf8, &bad_at) != 0) {
		if (bad_at == (size_t)-1)
			input_fail(in, "out of memory");
		else
			input_fail(in, "cannot read '%s': it is UTF-16 (%s byte order mark), and byte %zu starts no character (half a surrogate pair, or an odd byte)",
				  in->name, order == UTF16_LE ? "little-endian" : "big-endian",
				  bad_at);
		buf_free(&utf8);
		return -1;
	}
	if (in->guard >= 0) {
		guard[in->guard].start = NULL;
		in->guard = -1;
	}
	if (in->mapped)
		munmap(in->text, in->len);
	else
		free(in->text);
	in->mapped = 0;
	in->text = buf_detach(&utf8, &in->len);
	in->utf16 = order;
	if (!in->text) {
		input_fail(in, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Ends input_read() once `in` holds the text (NULL: out of memory): its
 * names and mode, and its UTF-8. 0, or -1 (said) with `in` freed.
 */
static int input_finish(struct input *in, const char *path, int is_stdin,
			mode_t mode)
{
	in->name = strdup(is_stdin ? INPUT_STDIN_NAME : path);
	in->path = is_stdin ? NULL : strdup(path);
	in->mode = mode & 07777;
	if (!in->text || !in->name || (!is_stdin && !in->path)) {
		input_fail(in, "out of memory");
		goto out_free;
	}
	if (input_from_utf16(in) != 0)
		goto out_free;
	return 0;
out_free:
	input_free(in);
	return -1;
}

/* ------------------------------------------------------------------ */

int input_read(const char *path, size_t max_bytes, struct input *in)
{
	int is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct buf b;
	char chunk[65536];
	ssize_t got;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->guard = -1;
	if (fd < 0) {
		input_fail(in, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		input_fail(in, "cannot stat '%s': %s", path, strerror(errno));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		input_fail(in, "'%s' is a directory", path);
		goto out_close;
	}
	if (!is_stdin && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (!max_bytes || (size_t)st.st_size <= max_bytes)) {
		/* mapped, not read: a large stream is paged in as it is parsed
		 * and released behind it (input_release) */
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
				 MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
			/* kept open: input_changed() watches the file */
			in->fd = fd;
			in->st = st;
			in->text = map;
			in->len = (size_t)st.st_size;
			in->mapped = 1;
			in->guard = guard_add(map, (size_t)st.st_size);
			return input_finish(in, path, 0, st.st_mode);
		}
	}
	/* a pipe or a device is read into memory: it gets a cap (files are
	 * mapped instead, and can be of any size) */
	if (!max_bytes)
		max_bytes = INPUT_STREAM_MAX;
	buf_init(&b, max_bytes);
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    buf_grow(&b, (size_t)st.st_size) != 0) {
		input_fail(in, "'%s' is too large (%lld bytes)", path,
			  (long long)st.st_size);
		goto out_close;
	}
	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			input_fail(in, "cannot read '%s': %s", path,
				   strerror(errno));
			buf_free(&b);
			goto out_close;
		}
		if (buf_append(&b, chunk, (size_t)got) != 0) {
			input_fail(in, "'%s' is larger than %zu MiB, the most read from a pipe or device; give a large stream as a file",
				  path, max_bytes >> 20);
			buf_free(&b);
			goto out_close;
		}
	}
	if (!is_stdin && S_ISREG(st.st_mode)) {
		in->fd = fd;
		in->st = st;
	} else if (!is_stdin) {
		close(fd);
	}
	in->text = buf_detach(&b, &in->len);
	return input_finish(in, path, is_stdin, st.st_mode);
out_close:
	if (!is_stdin)
		close(fd);
	return -1;
}

void input_free(struct input *in)
{
	char why[sizeof(in->why)];

	if (!in)
		return;
	free(in->name);
	free(in->path);
	if (in->guard >= 0)
		guard[in->guard].start = NULL;
	if (in->mapped)
		munmap(in->text, in->len);
	else
		free(in->text);
	if (in->fd >= 0)
		close(in->fd);
	/* why it could not be read outlives the rest */
	memmove(why, in->why, sizeof(why));
	memset(in, 0, sizeof(*in));
	memmove(in->why, why, sizeof(why));
	in->fd = -1;
	in->guard = -1;
}

void input_release(struct input *in, size_t upto)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t end;

	if (!in->mapped || page <= 0 || upto > in->len)
		return;
	end = upto - upto % (size_t)page;
	if (end > in->released) {
		madvise(in->text + in->released, end - in->released,
			MADV_DONTNEED);
		in->released = end;
	}
}

/*
 * The temporary file being written, for the signal handlers: SIGTERM,
 * SIGINT or SIGHUP in the middle of -i must not leave it behind. One at a
 * time: the CLI writes one file after the other.
 */
static char pending_tmp[PATH_MAX + 32];
static volatile sig_atomic_t pending;
static const int pending_signals[] = { SIGTERM, SIGINT, SIGHUP };

static void pending_handler(int sig)
{
	if (pending)
		unlink(pending_tmp);
	/* then what the signal does anyway */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Blocks (or unblocks) the signals that remove the temporary file. */
static void pending_block(int how)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(pending_signals) / sizeof(int); i++)
		sigaddset(&set, pending_signals[i]);
	sigprocmask(how, &set, NULL);
}

/* Catches those signals, unless they are ignored (nohup). */
static void pending_install(void)
{
	static int installed;

	if (installed)
		return;
	installed = 1;
	for (size_t i = 0; i < sizeof(pending_signals) / sizeof(int); i++) {
		struct sigaction sa, old;

		if (sigaction(pending_signals[i], NULL, &old) != 0 ||
		    old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = pending_handler;
		sigemptyset(&sa.sa_mask);
		sigaction(pending_signals[i], &sa, NULL);
	}
}

/*
 * `path`, which does not exist, with the folder it names resolved, in
 * `real` (PATH_MAX bytes). 0, or -1 with errno set.
 */
static int realpath_new(const char *path, char *real)
{
	char dir[PATH_MAX], real_dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (!*base || n >= sizeof(dir)) {
		errno = *base ? ENAMETOOLONG : EISDIR;
		return -1;
	}
	if (!slash)
		strcpy(dir, ".");
	else if (n == 0)
		strcpy(dir, "/");
	else {
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	if (!realpath(dir, real_dir))
		return -1;
	if (snprintf(real, PATH_MAX, "%s%s%s", real_dir,
		     strcmp(real_dir, "/") ? "/" : "", base) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int atomic_begin(struct atomic_file *af, const char *path, mode_t mode,
		 enum atomic_how how)
{
	char real[PATH_MAX];
	struct stat st;

	memset(af, 0, sizeof(*af));
	af->fd = -1;
	/* through a symlink, the file it points to is replaced */
	if (!realpath(path, real)) {
		if (errno != ENOENT || how == ATOMIC_REPLACE ||
		    realpath_new(path, real) != 0) {
			msg_error("cannot resolve '%s': %s", path,
				  strerror(errno));
			return -1;
		}
	} else if (how == ATOMIC_CREATE) {
		msg_error("'%s' already exists", path);
		return -1;
	}
	if (stat(real, &st) == 0) {
		/* a new file would have one link: the others would keep the
		 * old text, and nothing would say so */
		if (st.st_nlink > 1) {
			msg_error("'%s' has %lu hard links: a rewritten file would part it from the others; not rewriting it (write the output elsewhere, or give it a single link)",
				  path, (unsigned long)st.st_nlink);
			return -1;
		}
		af->keep_owner = 1;
		af->uid = st.st_uid;
		af->gid = st.st_gid;
	}
	af->path = path;
	af->mode = mode;
	af->how = how;
	af->real = strdup(real);
	af->tmp = malloc(strlen(real) + 32);
	if (!af->real || !af->tmp) {
		msg_error("out of memory");
		goto out_free;
	}
	sprintf(af->tmp, "%s.gpumend-XXXXXX", real);
	pending_install();
	/* no signal between the file's creation and the handler knowing it */
	pending_block(SIG_BLOCK);
	af->fd = mkstemp(af->tmp);
	if (af->fd >= 0 && strlen(af->tmp) < sizeof(pending_tmp)) {
		strcpy(pending_tmp, af->tmp);
		pending = 1;
	}
	pending_block(SIG_UNBLOCK);
	if (af->fd < 0) {
		msg_error("cannot write '%s': cannot create a temporary file: %s",
			  path, strerror(errno));
		goto out_free;
	}
	return 0;
out_free:
	free(af->real);
	free(af->tmp);
	memset(af, 0, sizeof(*af));
	af->fd = -1;
	return -1;
}

int atomic_write(struct atomic_file *af, const char *data, size_t len)
{
	if (buf_write_all(af->fd, data, len) != 0) {
		msg_error("cannot write '%s': %s (the file is unchanged)",
			  af->path, strerror(errno));
		atomic_abort(af);
		return -1;
	}
	return 0;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->fd >= 0) {
		close(af->fd);
		unlink(af->tmp);
	}
	pending = 0;
	free(af->real);
	free(af->tmp);
	memset(af, 0, sizeof(*af));
	af->fd = -1;
}

/* Gives the temporary file the owner and group of the file it replaces. */
static int keep_owner(const struct atomic_file *af)
{
	struct stat st;

	if (fstat(af->fd, &st) != 0)
		return -1;
	if (st.st_uid == af->uid && st.st_gid == af->gid)
		return 0;
	return fchown(af->fd, st.st_uid == af->uid ? (uid_t)-1 : af->uid,
		      st.st_gid == af->gid ? (gid_t)-1 : af->gid);
}

/*
 * Puts the temporary file in place of the file: renamed over it, or for
 * ATOMIC_CREATE linked to its name, which fails when a file has taken the
 * name since atomic_begin(). 0, or -1 with errno set.
 */
static int atomic_place(struct atomic_file *af)
{
	struct stat st;
	int saved;

	if (af->how != ATOMIC_CREATE)
		return rename(af->tmp, af->real);
	if (link(af->tmp, af->real) == 0) {
		unlink(af->tmp);
		return 0;
	}
	saved = errno;
	/* a file system without hard links: a check, then a rename */
	if (saved != EEXIST && lstat(af->real, &st) != 0 && errno == ENOENT)
		return rename(af->tmp, af->real);
	errno = saved;
	return -1;
}

int atomic_commit(struct atomic_file *af)
{
	char *slash;
	int dfd, saved;

	/* the owner and group first: a change of owner clears setuid bits */
	if (af->keep_owner && keep_owner(af) != 0) {
		saved = errno;
		msg_error("cannot keep the owner and group of '%s' (%lu:%lu): %s; not rewriting it",
			  af->path, (unsigned long)af->uid,
			  (unsigned long)af->gid, strerror(saved));
		atomic_abort(af);
		return -1;
	}
	if (fsync(af->fd) != 0 || fchmod(af->fd, af->mode) != 0) {
		saved = errno;
		msg_error("cannot write '%s': %s (the file is unchanged)",
			  af->path, strerror(saved));
		atomic_abort(af);
		return -1;
	}
	if (close(af->fd) != 0 || atomic_place(af) != 0) {
		saved = errno;
		unlink(af->tmp);
		af->fd = -1;
		if (saved == EEXIST && af->how == ATOMIC_CREATE)
			msg_error("'%s' already exists", af->path);
		else
			msg_error("cannot write '%s': %s (the file is unchanged)",
				  af->path, strerror(saved));
		atomic_abort(af);
		return -1;
	}
	af->fd = -1;
	/* the rename itself is made durable through the directory */
	slash = strrchr(af->real, '/');
	if (slash == af->real)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	dfd = open(af->real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	atomic_abort(af);
	return 0;
}

int file_write_atomic(const char *path, const char *data, size_t len,
		      mode_t mode)
{
	struct atomic_file af;

	if (atomic_begin(&af, path, mode, ATOMIC_REPLACE) ||
	    atomic_write(&af, data, len))
		return -1;
	return atomic_commit(&af);
}
