/*
 * base/hash_keyed.c - hash_keyed: the hash of strings that come from input
 * (paths, symbols, command lines), keyed per process as Redis keys its
 * dictionaries: SipHash-2-4 (libsodium's crypto_shorthash) under a random
 * key drawn once.  hash_bytes' FNV-1a is fixed, so a crafted snapshot or
 * profile could choose names that all fall in one probe run and make every
 * table it fills quadratic; under a key the input never sees it cannot.
 *
 * Tables index dense arrays (base/hash.h): the key changes which slot an
 * entry sits in, never the order anything is written in.  ptscope-capture
 * does not link this file (tests/cli/deb.sh: libc and libarchive only): it
 * copies /proc into a tar and interns nothing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "base/hash.h"

static unsigned char key[crypto_shorthash_KEYBYTES];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void draw_key(void)
{
	if (sodium_init() < 0) {
		fputs("ptscope: libsodium could not start (no random source)\n", stderr);
		exit(2);
	}
	randombytes_buf(key, sizeof(key));
}

uint64_t hash_keyed(const void *data, size_t bytes)
{
	unsigned char out[crypto_shorthash_BYTES];
	uint64_t hash;
	pthread_once(&key_once, draw_key);
	crypto_shorthash(out, data, bytes, key);
	memcpy(&hash, out, sizeof(hash));
	return hash;
}
