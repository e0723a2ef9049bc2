// bitcoin-core libsecp256k1 as Debian 12 ships it (libsecp256k1-dev 0.2.0): ES256K's curve.
#include <secp256k1.h>
