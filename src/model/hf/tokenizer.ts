/**
 * A model folder's `tokenizer.json` (and `tokenizer_config.json` when present) through
 * @huggingface/tokenizers — Hugging Face's own JavaScript port, the tokenizer inside
 * transformers.js, with no dependencies (~8 kB gzipped), in the browser and in Node. It reads the
 * same JSON the Rust `tokenizers` library writes; docs/real-models.md says why this one.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { ModelFolderError, readJsonObject, type ModelFiles } from './files';

export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
/** Qwen2.5's tokenizer.json is 7 MB, Llama 3's 9 MB: far below this. */
const MAX_TOKENIZER_BYTES = 64 << 20;

export interface HfTokenizer {
  /** Token ids of `text`, with the special tokens the tokenizer's post-processor adds (e.g. a BOS), as transformers does by default. */
  encode(text: string): number[];
  /** The text of `ids` (special tokens kept). */
  decode(ids: readonly number[]): string;
  /** How many ids the tokenizer can produce (its vocabulary plus added tokens). */
  size: number;
  /** The id of one token string (special tokens included), or undefined. */
  tokenToId(token: string): number | undefined;
  /** tokenizer_config.json's `eos_token` (a string or an AddedToken's content), or null. */
  eosToken: string | null;
  /** Whether tokenizer_config.json has a `chat_template`. */
  hasChatTemplate: boolean;
}

export async function loadHfTokenizer(files: ModelFiles): Promise<HfTokenizer> {
  const json = await readJsonObject(files, TOKENIZER_FILE, MAX_TOKENIZER_BYTES);
  const config = (await files.has(TOKENIZER_CONFIG_FILE)) ? await readJsonObject(files, TOKENIZER_CONFIG_FILE, MAX_TOKENIZER_BYTES) : {};
  return tokenizerFromJson(json, config, `${files.name}/${TOKENIZER_FILE}`);
}

/** A tokenizer from parsed tokenizer.json (and tokenizer_config.json) objects; `where` names the file in messages. */
export function tokenizerFromJson(json: Record<string, unknown>, config: Record<string, unknown>, where: string): HfTokenizer {
  const model = json.model as Record<string, unknown> | undefined;
  if (typeof model !== 'object' || model === null) throw new ModelFolderError(`${where}: no "model" object`);
  if (model.type !== 'BPE') throw new ModelFolderError(`${where}: model.type ${JSON.stringify(model.type)} is not supported yet (byte-level BPE only)`);
  let tok: Tokenizer;
  try {
    tok = new Tokenizer(json, config);
  } catch (e) {
    throw new ModelFolderError(`${where}: cannot be read as a tokenizer (${(e as Error).message})`);
  }
  const size = tok.get_vocab(true).size;
  return {
    encode: (text) => tok.encode(text).ids,
    // The library refuses an empty list; the text of no tokens is the empty string.
    decode: (ids) => (ids.length === 0 ? '' : tok.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false })),
    size,
    tokenToId: (t) => tok.token_to_id(t),
    eosToken: typeof config.eos_token === 'string' ? config.eos_token : typeof (config.eos_token as { content?: unknown } | null)?.content === 'string' ? (config.eos_token as { content: string }).content : null,
    hasChatTemplate: config.chat_template !== undefined && config.chat_template !== null,
  };
}

/**
 * The token that ends a response: config.json's `eos_token_id` (the first, when a list), else
 * tokenizer_config.json's `eos_token`, else `<|endoftext|>` when the vocabulary has it; `where` names the folder.
 */
export function resolveEosId(configJson: Record<string, unknown>, tok: HfTokenizer, vocabSize: number, where: string): number {
  const raw = Array.isArray(configJson.eos_token_id) ? configJson.eos_token_id[0] : configJson.eos_token_id;
  if (raw !== undefined && raw !== null) {
    if (!Number.isInteger(raw) || (raw as number) < 0 || (raw as number) >= vocabSize) throw new ModelFolderError(`${where}/config.json: eos_token_id ${JSON.stringify(raw)} is not a token id in [0, ${vocabSize})`);
    return raw as number;
  }
  for (const name of [tok.eosToken, '<|endoftext|>']) {
    const id = name === null ? undefined : tok.tokenToId(name);
    if (id !== undefined && id < vocabSize) return id;
  }
  throw new ModelFolderError(`${where}: no end-of-sequence token (config.json eos_token_id, tokenizer_config.json eos_token, or <|endoftext|> in tokenizer.json)`);
}
