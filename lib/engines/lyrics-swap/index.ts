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
  type LyricsSwapRender,
  type LyricsSwapRequest,
  lyricsSwapRequestSchema,
  NEWEST_MODEL_VERSION,
  renderVocalStem,
  singVocalStem,
  VOICE_MODELS,
  type VoiceModel,
} from './lyrics-swap-engine';
export { SINGERS, type SingerLanguage, type SingerPreset, type VibratoSettings } from './singers';
export { builtInSongs, type SongScore } from './songs';
