/**
 * Klatt's digital resonator (Klatt 1980 JASA 67:971, eq. 2), shared by both models' synthesizers.
 */

/**
 * Coefficients of a two-pole resonator with unity gain at 0 Hz:
 * y[n] = A·x[n] + B·y[n−1] + C·y[n−2]. Written into `into` at `offset` as A, B, C.
 */
export function setResonator(
  into: Float64Array,
  offset: number,
  frequency: number,
  bandwidth: number,
  sampleRate: number,
): void {
  const r = Math.exp((-Math.PI * bandwidth) / sampleRate);
  const c = -r * r;
  const b = 2 * r * Math.cos((2 * Math.PI * frequency) / sampleRate);
  into[offset] = 1 - b - c;
  into[offset + 1] = b;
  into[offset + 2] = c;
}
