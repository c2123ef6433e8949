// 0003-full-text: the Lucene full-text index over memory text (BM25-like
// scoring), with the English analyzer (Porter stemming, as the SQLite
// store's FTS5 'porter' tokenizer).
// ownerKey (a hash of the owner id, one token) is indexed next to the text
// so every query is owner-scoped inside Lucene (`ownerKey:<k> AND text:...`):
// a small owner keeps its recall among millions of other owners' memories,
// which filtering a global top-k afterwards would lose.
// Not eventually consistent: entries change at commit, so a deleted
// memory's words stop matching in the transaction that deletes it.
// Append-only: never edit this file once applied; add a new one instead.

CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.text, m.ownerKey]
OPTIONS { indexConfig: { `fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false } };
