/**
 * Lyrics-swap singing engine: public entry points.
 */
export {
  type ArrangeContext,
  type Arrangement,
  arrangeLyrics,
  createLyricsSwapEngine,
  LYRICS_SWAP_REQUEST_SCHEMA,
  type LyricsSwapEngine,
  type LyricsSwapEngineOptions,
  type LyricsSwapRequest,
  renderVocalStem,
  singVocalStem,
  VOICE_MODELS,
  type VoiceModel,
} from './lyrics-swap-engine';
export { SINGERS, type SingerPreset, type VibratoSettings } from './singers';
export { builtInSongs, type SongScore } from './songs';
