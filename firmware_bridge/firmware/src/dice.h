/* Fair dice: an entropy-fed generator and rejection sampling (no modulo bias). */
#ifndef TOWER_DICE_H
#define TOWER_DICE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the generator from a seed (on the AVR: boot counter and timer jitter). */
void dice_init(uint32_t seed);
/* Stirs fresh entropy (timer captures at unpredictable moments) into the state. */
void dice_mix(uint32_t entropy);
uint8_t dice_random_byte(void);
/* Uniform integer in 0..n-1 for 1 <= n <= 255, from the given byte source. Bytes at or above
 * the largest multiple of n below 256 are rejected, so every result is equally likely. */
uint8_t dice_uniform_from(uint8_t n, uint8_t (*next_byte)(void));
uint8_t dice_uniform(uint8_t n);
/* Fills values for a dice kind (1..6 for d6 kinds, face index 0..5 for resource dice).
 * Returns the number of dice, or 0 for an unknown kind. */
uint8_t dice_roll(uint8_t kind, uint8_t *values);
/* Number of dice of a kind, 0 if unknown. */
uint8_t dice_count(uint8_t kind);

#ifdef __cplusplus
}
#endif
#endif
