/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * obsolete_cuda_hostpath.c - hostPath volumes that mount the NVIDIA driver
 * or CUDA libraries by hand, as pods of the nvidia-docker 1 era did.
 *
 * The NVIDIA container toolkit now injects the driver's libraries and
 * binaries into every container that gets a GPU, so these volumes are at
 * best redundant and at worst pin a driver version the node no longer has.
 * Each one goes, with every volumeMount that uses it. Host paths that may
 * hold other things too (/usr/bin mounted at /usr/local/nvidia/bin), or
 * that a platform still fills with its driver (GKE's
 * /home/kubernetes/bin/nvidia), are only warned about. The volumes of the
 * GPU stack's own components (a driver installer, the DCGM exporter on
 * GKE) are theirs to mount: those are left alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* The volumes of one pod that are removed, by name. */
struct obsolete_set {
	const char **names;   /* borrowed from the volumes */
	size_t n;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The set is sorted once it is complete (a pod may have thousands of
 * volumes and mounts: no scan per mount). */
static int obsolete_set_has(const struct obsolete_set *set, const char *name)
{
	if (!name || !set->n)
		return 0;
	return bsearch(&name, set->names, set->n, sizeof(*set->names),
		       name_cmp) != NULL;
}

/* 1 when the volumeMount `mount` uses a volume of `set`. */
static int mount_is_obsolete(const struct obsolete_set *set, json_t *mount)
{
	return obsolete_set_has(set, json_string_value(json_member(mount,
								   "name")));
}

/*
 * `path` as the kubelet reads it, which is Go's filepath.Clean: runs of
 * '/' as one, "." elements dropped, each ".." dropping the element before
 * it (nothing at the root), no trailing '/' but for "/" itself, "." for
 * nothing left. "/usr/local//nvidia/" and "/usr/local/./nvidia" mount
 * what "/usr/local/nvidia" does. A new string; NULL when out of memory.
 */
static char *path_clean(const char *path)
{
	size_t n = strlen(path), r = 0, w = 0, dotdot = 0;
	int rooted = n && path[0] == '/';
	char *out = malloc(n + 2);

	if (!out)
		return NULL;
	if (rooted)
		out[w++] = '/', r = dotdot = 1;
	while (r < n) {
		if (path[r] == '/') {
			r++;
		} else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
			r++;
		} else if (path[r] == '.' && path[r + 1] == '.' &&
			   (r + 2 == n || path[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				/* drop the last element */
				w--;
				while (w > dotdot && out[w] != '/')
					w--;
			} else if (!rooted) {
				/* a relative path keeps its leading ".." */
				if (w > 0)
					out[w++] = '/';
				out[w++] = '.';
				out[w++] = '.';
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0))
				out[w++] = '/';
			while (r < n && path[r] != '/')
				out[w++] = path[r++];
		}
	}
	if (!w)
		out[w++] = '.';
	out[w] = '\0';
	return out;
}

/* 1 when `path`, cleaned as the kubelet cleans it (path_clean()), matches
 * one of `patterns`; -1 on OOM. */
static int path_matches(const struct string_list *patterns, const char *path)
{
	char *clean;
	int match;

	/* most paths are clean already: matched as they are */
	if (*path == '/' && !strstr(path, "//") && !strstr(path, "/.") &&
	    (path[1] == '\0' || path[strlen(path) - 1] != '/'))
		return string_list_match(patterns, path);
	if (!(clean = path_clean(path)))
		return -1;
	match = string_list_match(patterns, clean);
	free(clean);
	return match;
}

typedef int (*mount_fn)(json_t *container, json_t *mount, void *arg);

/*
 * Calls `fn` for every volumeMount of every container of `pod`, with its
 * container. Stops at the first nonzero return of `fn` and returns it.
 */
static int pod_for_each_mount(const struct pod_spec *pod, mount_fn fn,
			      void *arg)
{
	struct container_cursor cur = { 0, 0 };
	json_t *c;

	while ((c = pod_next_container(pod->form, pod->spec, &cur))) {
		json_t *mounts = json_member(c, "volumeMounts"), *m;
		size_t j;
		int rc;

		json_array_foreach(mounts, j, m)
			if ((rc = fn(c, m, arg)) != 0)
				return rc;
	}
	return 0;
}

/*
 * The mounts of a pod at an ambiguous mount path, sorted by volume name
 * and, for one name, in the order the pod lists them: built once per pod,
 * when its first ambiguous volume is found, so that finding where each
 * such volume is mounted is a binary search, not a read of every mount.
 */
struct ambiguous_mounts {
	struct rule_ctx *ctx;
	struct named_mount {
		const char *name;     /* borrowed from the pod */
		const char *path;
		size_t order;
	} *items;
	size_t n, cap;
	int built;
};

static int named_mount_cmp(const void *a, const void *b)
{
	const struct named_mount *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : x->order < y->order ? -1 : x->order > y->order;
}

/* Adds `mount` when it is at an ambiguous mount path; 0, -1 on a failure. */
static int note_ambiguous(json_t *container, json_t *mount, void *arg)
{
	struct ambiguous_mounts *am = arg;
	const char *name = json_string_value(json_member(mount, "name"));
	const char *path = json_string_value(json_member(mount, "mountPath"));
	size_t order = am->n;
	int match;

	(void)container;
	if (rule_spend(am->ctx, 1))
		return -1;
	if (!name || !path)
		return 0;
	match = path_matches(&am->ctx->cfg->ambiguous_mount_paths, path);
	if (match <= 0)
		return match;
	if (am->n == am->cap) {
		size_t cap = am->cap ? am->cap * 2 : 8;
		struct named_mount *grown = realloc(am->items,
						    cap * sizeof(*grown));

		if (!grown)
			return -1;
		am->items = grown;
		am->cap = cap;
	}
	am->items[am->n++] = (struct named_mount){ name, path, order };
	return 0;
}

/*
 * The first mountPath at which a container of `pod` mounts volume `name`
 * and that matches the ambiguous mount paths; NULL when none does. Sets
 * *failed when out of memory or over the review's work budget.
 */
static const char *ambiguous_mount(struct ambiguous_mounts *am,
				   const struct pod_spec *pod,
				   const char *name, int *failed)
{
	size_t lo = 0, hi;

	if (!am->built) {
		am->built = 1;
		if (pod_for_each_mount(pod, note_ambiguous, am)) {
			*failed = 1;
			return NULL;
		}
		if (am->n)
			qsort(am->items, am->n, sizeof(*am->items),
			      named_mount_cmp);
	}
	/* the first entry of that name: the first the pod lists */
	hi = am->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(am->items[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < am->n && !strcmp(am->items[lo].name, name) ?
	       am->items[lo].path : NULL;
}

static int message_fits(const char *fmt, const char *a, const char *b,
			const char *c);

#define VENDOR_FMT (rule_mutates(ctx) ? \
	"removed hostPath volume '%s' (%s); the device plugin mounts it into GPU containers" : \
	"hostPath volume '%s' (%s) is mounted by hand; the device plugin mounts it into GPU containers")

struct vendor_search {
	const struct config *cfg;
	const char *name;         /* the volume */
	const char *gpu_mount;    /* a GPU container's mount where the
				   * device plugin mounts the driver */
	int other;                /* mounted by a container without GPUs, or
				   * elsewhere */
	int failed;
};

/* Notes who mounts the volume of a vendor's driver directory. */
static int find_vendor_mount(json_t *container, json_t *mount, void *arg)
{
	struct vendor_search *search = arg;
	const char *name = json_string_value(json_member(mount, "name"));
	const char *path = json_string_value(json_member(mount, "mountPath"));
	int match;

	if (!name || strcmp(name, search->name) != 0)
		return 0;
	match = path ? path_matches(&search->cfg->ambiguous_mount_paths, path)
		     : 0;
	if (match < 0) {
		search->failed = 1;
		return -1;
	}
	if (match && container_requests_gpu(search->cfg, container)) {
		if (!search->gpu_mount)
			search->gpu_mount = path;
	} else {
		search->other = 1;
	}
	return 0;
}

/*
 * A volume of a vendor's current driver directory (GKE's
 * /home/kubernetes/bin/nvidia): current in a container without GPUs (the
 * GPUDirect-TCPX sidecars, the MIG partitioner), legacy in a container
 * that asks for a GPU, into which the device plugin mounts it itself.
 * Returns 1 when the volume is to go (only GPU containers mount it, at the
 * driver's place), 0 otherwise (a warning when GPU containers and others
 * share it), -1 when out of memory.
 */
static int check_vendor_dir(struct rule_ctx *ctx, struct pod_spec *pod,
			    const char *name, const char *path,
			    const char *pointer)
{
	struct vendor_search search = { ctx->cfg, name, NULL, 0, 0 };

	pod_for_each_mount(pod, find_vendor_mount, &search);
	if (search.failed)
		return -1;
	if (!search.gpu_mount)
		return 0;
	if (search.other)
		return rule_report(ctx, SEVERITY_WARNING, pointer, 0,
				   "hostPath volume '%.40s' is mounted into a GPU container at '%.40s', where the device plugin mounts it",
				   name, search.gpu_mount) ? -1 : 0;
	if (message_fits(VENDOR_FMT, name, path, NULL))
		return rule_report(ctx, SEVERITY_WARNING, pointer, 1,
				   VENDOR_FMT, name, path) ? -1 : 1;
	return rule_report(ctx, SEVERITY_WARNING, pointer, 1,
			   rule_mutates(ctx) ?
			   "removed hostPath volume '%s'; the device plugin mounts the driver into GPU containers" :
			   "hostPath volume '%s' is mounted by hand; the device plugin mounts it into GPU containers",
			   name) ? -1 : 1;
}

/* Removes the container's mounts of obsolete volumes, last first. */
static int strip_mounts(struct rule_ctx *ctx, struct pod_spec *pod,
			struct container *c, void *arg)
{
	const struct obsolete_set *set = arg;
	json_t *mounts = json_member(c->container, "volumeMounts");
	size_t n = json_array_size(mounts), kept = 0;
	char *mounts_pointer;
	int rc = 0;

	(void)pod;
	if (!json_is_array(mounts) || n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		kept += !mount_is_obsolete(set, json_array_get(mounts, i));
	if (kept == n)
		return 0;
	mounts_pointer = json_pointer_join(c->pointer, "volumeMounts");
	if (!mounts_pointer)
		return -1;
	if (kept == 0) {
		/* an empty volumeMounts list is noise: drop the key */
		rc = rule_remove(ctx, mounts_pointer);
		goto out_free_pointer;
	}
	for (size_t i = n; rc == 0 && i-- > 0;) {
		char *p;

		if (!mount_is_obsolete(set, json_array_get(mounts, i)))
			continue;
		p = json_pointer_join_index(mounts_pointer, i);
		rc = p ? rule_remove(ctx, p) : -1;
		free(p);
	}
out_free_pointer:
	free(mounts_pointer);
	return rc;
}

#define MESSAGE_MAX 120

#define AMBIGUOUS_FMT \
	"hostPath volume '%s' (%s) is mounted at '%s'; drop it if it only carries the NVIDIA driver"

/*
 * 1 when `fmt` (whose only conversions are up to three %s) makes a short
 * enough message with `a`, `b` and `c`.
 */
static int message_fits(const char *fmt, const char *a, const char *b,
			const char *c)
{
	const char *args[] = { a, b, c };
	size_t len = 0, n = 0;

	for (const char *p = fmt; *p; p++, len++)
		if (p[0] == '%' && p[1] == 's' && n < 3) {
			len += strlen(args[n++]);
			p++;
			len--;
		}
	return len <= MESSAGE_MAX;
}

/* Reports one volume, named `name` (NULL when it has none): obsolete
 * (returns 1), ambiguous or fine (0); -1. */
static int check_volume(struct rule_ctx *ctx, struct pod_spec *pod,
			json_t *volume, const char *name, const char *pointer,
			struct ambiguous_mounts *am)
{
	const struct config *cfg = ctx->cfg;
	const char *path, *mount;
	int match, failed = 0;

	path = json_string_value(json_member(json_member(volume,
							 "hostPath"),
						 "path"));
	if (!path)
		return 0;
	match = path_matches(&cfg->obsolete_host_paths, path);
	if (match < 0)
		return -1;
	if (match) {
		const char *shown = name ? name : "(unnamed)";
		const char *fmt, *fmt_short;

		if (rule_mutates(ctx)) {
			fmt = "removed hostPath volume '%s' (%s); the NVIDIA container toolkit mounts the driver";
			fmt_short = "removed hostPath volume '%s'; the NVIDIA container toolkit mounts the driver";
		} else {
			fmt = "hostPath volume '%s' (%s) mounts the NVIDIA driver by hand; the container toolkit does it";
			fmt_short = "hostPath volume '%s' mounts the NVIDIA driver by hand; the container toolkit does it";
		}
		/* a long path is dropped: admission warnings are capped */
		if (message_fits(fmt, shown, path, NULL))
			return rule_report(ctx, SEVERITY_WARNING, pointer, 1,
					   fmt, shown, path) ? -1 : 1;
		return rule_report(ctx, SEVERITY_WARNING, pointer, 1,
				   fmt_short, shown) ? -1 : 1;
	}
	if (!name)
		return 0;
	match = path_matches(&cfg->vendor_driver_dirs, path);
	if (match)
		return match < 0 ? -1 :
		       check_vendor_dir(ctx, pod, name, path, pointer);
	match = path_matches(&cfg->ambiguous_host_paths, path);
	if (match <= 0)
		return match;
	mount = ambiguous_mount(am, pod, name, &failed);
	if (failed)
		return -1;
	if (!mount)
		return 0;
	if (message_fits(AMBIGUOUS_FMT, name, path, mount))
		return rule_report(ctx, SEVERITY_WARNING, pointer, 0,
				   AMBIGUOUS_FMT, name, path, mount);
	return rule_report(ctx, SEVERITY_WARNING, pointer, 0,
			   "hostPath volume '%s' is mounted where the NVIDIA driver goes; drop it if it only carries the driver",
			   name);
}

struct stack_volumes {
	struct rule_ctx *ctx;
	struct obsolete_set *set;
	size_t cap;               /* counted in a first pass, names NULL */
	json_t *container;        /* the last container looked at */
	int stack;                /* whether it is a stack component */
};

/* Counts, then records, the volumes that stack components mount. */
static int note_stack_volume(json_t *container, json_t *mount, void *arg)
{
	struct stack_volumes *sv = arg;
	const char *name;

	/* once per container, not per mount: a pod may have thousands */
	if (container != sv->container) {
		sv->container = container;
		sv->stack = rule_image_is_stack_component(sv->ctx,
			json_string_value(json_member(container, "image")));
	}
	if (!sv->stack ||
	    !(name = json_string_value(json_member(mount, "name"))))
		return 0;
	if (!sv->set->names)
		sv->cap++;
	else if (sv->set->n < sv->cap)
		sv->set->names[sv->set->n++] = name;
	return 0;
}

/*
 * Fills `set` (empty) with the names of the volumes that containers of the
 * GPU stack's own components mount, sorted; they are left alone. Most
 * pods run none, and then nothing is allocated. 0, or -1 when out of
 * memory.
 */
static int stack_volumes_collect(struct rule_ctx *ctx,
				 const struct pod_spec *pod,
				 struct obsolete_set *set)
{
	struct stack_volumes sv = { ctx, set, 0, NULL, 0 };

	pod_for_each_mount(pod, note_stack_volume, &sv);
	if (sv.cap == 0)
		return 0;
	if (!(set->names = calloc(sv.cap, sizeof(*set->names))))
		return -1;
	sv.container = NULL;
	pod_for_each_mount(pod, note_stack_volume, &sv);
	qsort(set->names, set->n, sizeof(*set->names), name_cmp);
	return 0;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	json_t *volumes = json_member(pod->spec, "volumes");
	size_t n = json_array_size(volumes), n_obsolete = 0;
	struct obsolete_set set = { 0 }, stack = { 0 };
	struct ambiguous_mounts am = { .ctx = ctx };
	unsigned char *obsolete = NULL;
	char *volumes_pointer;
	int rc = -1;

	(void)arg;
	if (!json_is_array(volumes) || n == 0)
		return 0;
	volumes_pointer = json_pointer_join(pod->pointer, "volumes");
	obsolete = calloc(n, 1);
	set.names = calloc(n, sizeof(*set.names));
	if (!volumes_pointer || !obsolete || !set.names ||
	    stack_volumes_collect(ctx, pod, &stack))
		goto out_free;

	/* report everything first, at the pointers of the input */
	for (size_t i = 0; i < n; i++) {
		json_t *volume = json_array_get(volumes, i);
		const char *name = json_string_value(json_member(volume,
								 "name"));
		char *p;
		int found;

		if (obsolete_set_has(&stack, name))
			continue;
		if (!(p = json_pointer_join_index(volumes_pointer, i)))
			goto out_free;
		found = check_volume(ctx, pod, volume, name, p, &am);
		free(p);
		if (found < 0)
			goto out_free;
		if (!found)
			continue;
		obsolete[i] = 1;
		n_obsolete++;
		if (name)
			set.names[set.n++] = name;
	}
	rc = 0;
	if (n_obsolete == 0 || !rule_mutates(ctx))
		goto out_free;

	/* the names are borrowed from the volumes, removed only after this */
	if (set.n)
		qsort(set.names, set.n, sizeof(*set.names), name_cmp);
	if (set.n && pod_for_each_container(ctx, pod, strip_mounts, &set)) {
		rc = -1;
		goto out_free;
	}
	if (n_obsolete == n) {
		rc = rule_remove(ctx, volumes_pointer);
		goto out_free;
	}
	for (size_t i = n; rc == 0 && i-- > 0;) {
		char *p;

		if (!obsolete[i])
			continue;
		p = json_pointer_join_index(volumes_pointer, i);
		rc = p ? rule_remove(ctx, p) : -1;
		free(p);
	}
out_free:
	free(am.items);
	free(stack.names);
	free(set.names);
	free(obsolete);
	free(volumes_pointer);
	return rc;
}

int rule_run_obsolete_cuda_hostpath(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
