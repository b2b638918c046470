/**
 * Per-category prototype sentences and their similarity to a candidate. With a real model this
 * separates "we'll use X because…" from "tests live in test/" beyond what cue phrases see;
 * with the random-weight test models it is noise, which is why it only nudges rule scores
 * (see rule-extractor.ts) and never creates a memory on its own.
 */
import type { Embedder } from '../embed/types.js';
import type { Category } from '../types.js';
import { cosine } from '../vector.js';

export const PROTOTYPES: Readonly<Record<Category, readonly string[]>> = {
  decision: [
    "We'll use Postgres for the session store because SQLite can't handle concurrent writes.",
    "Let's go with esbuild instead of webpack for the build.",
    'We decided to drop GraphQL and expose plain REST endpoints.',
    'We switched the test runner from Jest to Vitest.',
    'Decision: feature flags are read from the config service, not from environment variables.',
  ],
  constraint: [
    'The CLI must support Node 18.',
    'Never commit directly to the main branch.',
    "We can't use GPL-licensed dependencies.",
    'The hook must not block the agent for more than 200 milliseconds.',
    'The service has to work offline without network access.',
  ],
  preference: [
    'I prefer small, focused commits.',
    'I like early returns instead of nested conditionals.',
    "Don't use emojis in your replies to me.",
    "I'd rather you explain the plan before editing files.",
    'I hate default exports.',
  ],
  convention: [
    'We use tabs for indentation.',
    'Tests live in the test folder and mirror the source tree.',
    'Commit messages follow Conventional Commits.',
    'Components are named in PascalCase and files in kebab-case.',
    'Use named exports everywhere in this repository.',
  ],
  context: [
    'This repository uses pnpm workspaces.',
    'Deploys go through GitHub Actions to staging.',
    'The billing service is written in Go.',
    'The backend runs on Kubernetes in Europe.',
    'The project is a command line tool for managing releases.',
  ],
  fact: [
    'The API server runs on port 8080.',
    'The staging database is reset every night at 2am.',
    'Tests run with npm test.',
    'The admin dashboard lives at https://admin.example.com.',
    'Uploads are limited to 10 megabytes.',
  ],
  note: [
    'Remember that the payments sandbox rejects large amounts.',
    'Note that the legacy importer is slow on big files.',
    'Keep in mind that the staging credentials rotate monthly.',
    'For the record, the old cluster is being retired.',
  ],
};

/** Embeds the prototypes once per embedder and scores sentences against them. */
export class PrototypeScorer {
  private vectors: Promise<Map<Category, Float32Array[]>> | null = null;

  constructor(private readonly embedder: Embedder) {}

  /** For each text, the best cosine (clamped to 0..1) to each category's prototypes. */
  async score(texts: readonly string[]): Promise<Map<Category, number>[]> {
    const protos = await this.prototypeVectors();
    const vecs = await this.embedder.embedDocuments(texts);
    return vecs.map((v) => {
      const out = new Map<Category, number>();
      for (const [cat, list] of protos) out.set(cat, Math.max(0, ...list.map((p) => cosine(v, p))));
      return out;
    });
  }

  private prototypeVectors(): Promise<Map<Category, Float32Array[]>> {
    if (!this.vectors) {
      const loading = this.embedPrototypes();
      // A failed load is retried next time rather than cached.
      loading.catch(() => {
        if (this.vectors === loading) this.vectors = null;
      });
      this.vectors = loading;
    }
    return this.vectors;
  }

  private async embedPrototypes(): Promise<Map<Category, Float32Array[]>> {
    const cats = Object.keys(PROTOTYPES) as Category[];
    const vecs = await this.embedder.embedDocuments(cats.flatMap((c) => PROTOTYPES[c]));
    const out = new Map<Category, Float32Array[]>();
    let i = 0;
    for (const c of cats) out.set(c, PROTOTYPES[c].map(() => vecs[i++]!));
    return out;
  }
}
