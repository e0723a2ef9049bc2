/*
 * A load for profiling passkeyd's registrations (docs/benchmarks.md, "Waiting for the device
 * instead of busy"): CLIENTS blocking threads, each a host with a connection and a channel of
 * its own, register resident ES256 credentials over raw CTAPHID reports for SECONDS, each at an
 * RP of its own. A thread told CTAPHID_ERR_CHANNEL_BUSY sends its next request at once, and
 * the busy answers are counted. Not part of `make bench`: nothing but the socket between it
 * and the daemon, for `perf` and `strace` to look at the daemon alone.
 *
 *   gcc -O2 -o registration-load scripts/registration-load.c -lpthread
 *   passkeyd --socket S --data-dir D --presence auto --uv off --log-level warning &
 *   registration-load S CLIENTS SECONDS
 *
 * Prints "N ops R/s busy B"; exits 1 on any other error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REPORT 64
#define CMD_INIT 0x06
#define CMD_CBOR 0x10
#define CMD_KEEPALIVE 0x3B
#define CMD_ERROR 0x3F
#define ERR_CHANNEL_BUSY 0x06

static const char *socket_path;
static double seconds;
static atomic_long completed, busy;
static atomic_uint next_user;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static void read_report(int fd, uint8_t *report)
{
	size_t got = 0;

	while (got < REPORT) {
		ssize_t n = read(fd, report + got, REPORT - got);
		if (n <= 0)
			fail("read");
		got += (size_t)n;
	}
}

/* One message as reports: an initialization packet, then continuations. */
static void send_message(int fd, uint32_t cid, uint8_t cmd, const uint8_t *data, size_t length)
{
	uint8_t reports[REPORT * 32];
	size_t sent = 0, used = REPORT, chunk, pos;
	uint8_t seq = 0;

	memset(reports, 0, sizeof(reports));
	memcpy(reports, &cid, 4);
	reports[4] = 0x80 | cmd;
	reports[5] = (uint8_t)(length >> 8);
	reports[6] = (uint8_t)length;
	chunk = length < REPORT - 7 ? length : REPORT - 7;
	memcpy(reports + 7, data, chunk);
	for (pos = chunk; pos < length; pos += chunk, used += REPORT) {
		uint8_t *report = reports + used;
		memcpy(report, &cid, 4);
		report[4] = seq++;
		chunk = length - pos < REPORT - 5 ? length - pos : REPORT - 5;
		memcpy(report + 5, data + pos, chunk);
	}
	while (sent < used) {
		ssize_t n = write(fd, reports + sent, used - sent);
		if (n <= 0)
			fail("write");
		sent += (size_t)n;
	}
}

/* The next message that is not a keepalive; returns its command. */
static uint8_t receive_message(int fd, uint8_t *data, size_t *length)
{
	uint8_t report[REPORT], command;
	size_t pos, chunk;

	do
		read_report(fd, report);
	while (report[4] == (0x80 | CMD_KEEPALIVE));
	command = report[4] & 0x7F;
	*length = (size_t)report[5] << 8 | report[6];
	chunk = *length < REPORT - 7 ? *length : REPORT - 7;
	memcpy(data, report + 7, chunk);
	for (pos = chunk; pos < *length; pos += chunk) {
		read_report(fd, report);
		chunk = *length - pos < REPORT - 5 ? *length - pos : REPORT - 5;
		memcpy(data + pos, report + 5, chunk);
	}
	return command;
}

static size_t put(uint8_t *out, const void *bytes, size_t count)
{
	memcpy(out, bytes, count);
	return count;
}

/* authenticatorMakeCredential, rk, ES256, at RP "bench-<user>.example" for user <user>. */
static size_t make_credential(uint8_t *out, unsigned user)
{
	char rp[32];
	int rp_length = snprintf(rp, sizeof(rp), "bench-%08x.example", user);
	size_t k = 0;

	out[k++] = 0x01;	/* makeCredential */
	out[k++] = 0xA5;	/* map of 5 */
	out[k++] = 0x01;	/* clientDataHash: 32 bytes */
	out[k++] = 0x58;
	out[k++] = 32;
	memset(out + k, 0x5A, 32);
	k += 32;
	out[k++] = 0x02;	/* rp: {"id": rp} */
	out[k++] = 0xA1;
	out[k++] = 0x62;
	k += put(out + k, "id", 2);
	out[k++] = (uint8_t)(0x60 + rp_length);
	k += put(out + k, rp, (size_t)rp_length);
	out[k++] = 0x03;	/* user: {"id": 16 bytes, "name": "bench"} */
	out[k++] = 0xA2;
	out[k++] = 0x62;
	k += put(out + k, "id", 2);
	out[k++] = 0x50;
	memset(out + k, 0, 16);
	memcpy(out + k, &user, sizeof(user));
	k += 16;
	out[k++] = 0x64;
	k += put(out + k, "name", 4);
	out[k++] = 0x65;
	k += put(out + k, "bench", 5);
	out[k++] = 0x04;	/* pubKeyCredParams: [{"alg": -7, "type": "public-key"}] */
	out[k++] = 0x81;
	out[k++] = 0xA2;
	out[k++] = 0x63;
	k += put(out + k, "alg", 3);
	out[k++] = 0x26;
	out[k++] = 0x64;
	k += put(out + k, "type", 4);
	out[k++] = 0x6A;
	k += put(out + k, "public-key", 10);
	out[k++] = 0x07;	/* options: {"rk": true} */
	out[k++] = 0xA1;
	out[k++] = 0x62;
	k += put(out + k, "rk", 2);
	out[k++] = 0xF5;
	return k;
}

static void *host(void *unused)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	uint8_t nonce[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, reply[8192], request[256];
	size_t length;
	uint32_t cid;
	long done = 0;
	double end;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	(void)unused;
	strncpy(address.sun_path, socket_path, sizeof(address.sun_path) - 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0)
		fail("connect");
	send_message(fd, 0xFFFFFFFF, CMD_INIT, nonce, sizeof(nonce));
	if (receive_message(fd, reply, &length) != CMD_INIT || length < 12)
		fail("INIT");
	memcpy(&cid, reply + 8, 4);
	for (end = now() + seconds; now() < end;) {
		send_message(fd, cid, CMD_CBOR, request, make_credential(request, atomic_fetch_add(&next_user, 1)));
		uint8_t command = receive_message(fd, reply, &length);
		if (command == CMD_ERROR && length == 1 && reply[0] == ERR_CHANNEL_BUSY) {
			atomic_fetch_add(&busy, 1);
			continue;
		}
		if (command != CMD_CBOR || length == 0 || reply[0] != 0) {
			fprintf(stderr, "command %02x status %02x\n", command, length ? reply[0] : 0);
			exit(1);
		}
		done++;
	}
	atomic_fetch_add(&completed, done);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[64];
	int clients, i;
	double start;

	if (argc != 4 || (clients = atoi(argv[2])) < 1 || clients > 64) {
		fprintf(stderr, "usage: %s SOCKET CLIENTS(1-64) SECONDS\n", argv[0]);
		return 2;
	}
	socket_path = argv[1];
	seconds = atof(argv[3]);
	srand((unsigned)getpid());
	atomic_store(&next_user, (unsigned)rand());
	start = now();
	for (i = 0; i < clients; i++)
		if (pthread_create(&threads[i], NULL, host, NULL) != 0)
			fail("pthread_create");
	for (i = 0; i < clients; i++)
		pthread_join(threads[i], NULL);
	printf("%ld ops %.0f/s busy %ld\n", atomic_load(&completed), (double)atomic_load(&completed) / (now() - start),
	       atomic_load(&busy));
	return 0;
}
