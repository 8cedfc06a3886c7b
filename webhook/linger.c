/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linger.c - drains connections answered before their body was read, so
 * that the client can read the answer (see linger.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "linger.h"

struct lingering {
	int fd;                  /* -1: a free slot */
	long long deadline_ms;
	size_t drained;
};

struct linger_set {
	pthread_t thread;
	pthread_mutex_t lock;    /* guards `items` */
	int epoll_fd;
	int stop_fd;             /* an eventfd: the thread is to end */
	unsigned max;
	unsigned timeout_ms;
	size_t max_bytes;
	struct lingering *items;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Closes a lingering connection and frees its slot. Under the lock. */
static void item_close(struct linger_set *set, struct lingering *item)
{
	epoll_ctl(set->epoll_fd, EPOLL_CTL_DEL, item->fd, NULL);
	close(item->fd);
	item->fd = -1;
}

/* Reads and drops what has come; closes at the end, an error or the cap. */
static void item_drain(struct linger_set *set, struct lingering *item)
{
	static _Thread_local char sink[65536];

	for (;;) {
		ssize_t n = recv(item->fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n > 0) {
			item->drained += (size_t)n;
			if (item->drained > set->max_bytes)
				break;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0 && errno == EINTR)
			continue;
		break; /* the client closed, or the connection failed */
	}
	item_close(set, item);
}

static void *linger_thread(void *arg)
{
	struct linger_set *set = arg;
	struct epoll_event events[64];

	for (;;) {
		int n = epoll_wait(set->epoll_fd, events, 64, 100);
		long long now;

		if (n < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&set->lock);
		for (int i = 0; i < n; i++) {
			struct lingering *item;

			if (events[i].data.u32 == UINT32_MAX) {
				pthread_mutex_unlock(&set->lock);
				return NULL;
			}
			item = &set->items[events[i].data.u32];
			if (item->fd >= 0)
				item_drain(set, item);
		}
		now = now_ms();
		for (unsigned i = 0; i < set->max; i++)
			if (set->items[i].fd >= 0 &&
			    now >= set->items[i].deadline_ms)
				item_close(set, &set->items[i]);
		pthread_mutex_unlock(&set->lock);
	}
	return NULL;
}

struct linger_set *linger_new(unsigned max, unsigned timeout_ms,
			      size_t max_bytes)
{
	struct linger_set *set = calloc(1, sizeof(*set));
	struct epoll_event ev = { .events = EPOLLIN };

	if (!set)
		return NULL;
	set->max = max;
	set->timeout_ms = timeout_ms;
	set->max_bytes = max_bytes;
	set->epoll_fd = -1;
	set->stop_fd = -1;
	if (!(set->items = calloc(max, sizeof(*set->items))))
		goto out_free;
	for (unsigned i = 0; i < max; i++)
		set->items[i].fd = -1;
	if (pthread_mutex_init(&set->lock, NULL) != 0)
		goto out_free;
	set->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	set->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ev.data.u32 = UINT32_MAX;
	if (set->epoll_fd < 0 || set->stop_fd < 0 ||
	    epoll_ctl(set->epoll_fd, EPOLL_CTL_ADD, set->stop_fd, &ev) != 0 ||
	    pthread_create(&set->thread, NULL, linger_thread, set) != 0)
		goto out_destroy;
	return set;
out_destroy:
	pthread_mutex_destroy(&set->lock);
out_free:
	if (set->epoll_fd >= 0)
		close(set->epoll_fd);
	if (set->stop_fd >= 0)
		close(set->stop_fd);
	free(set->items);
	free(set);
	return NULL;
}

void linger_add(struct linger_set *set, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	unsigned i;

	if (fd < 0)
		return;
	/* the answer is out: the client now sees its end */
	shutdown(fd, SHUT_WR);
	if (!set) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&set->lock);
	for (i = 0; i < set->max && set->items[i].fd >= 0; i++)
		;
	ev.data.u32 = i;
	if (i == set->max ||
	    epoll_ctl(set->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		/* too many at once: closed as before */
		pthread_mutex_unlock(&set->lock);
		close(fd);
		return;
	}
	set->items[i].fd = fd;
	set->items[i].deadline_ms = now_ms() + set->timeout_ms;
	set->items[i].drained = 0;
	pthread_mutex_unlock(&set->lock);
}

void linger_free(struct linger_set *set)
{
	uint64_t one = 1;

	if (!set)
		return;
	if (write(set->stop_fd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		pthread_join(set->thread, NULL);
	for (unsigned i = 0; i < set->max; i++)
		if (set->items[i].fd >= 0)
			close(set->items[i].fd);
	pthread_mutex_destroy(&set->lock);
	close(set->epoll_fd);
	close(set->stop_fd);
	free(set->items);
	free(set);
}
