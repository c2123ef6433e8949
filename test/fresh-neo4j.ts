// Before each test file: its worker's Neo4j (services.ts) is emptied of
// everything but the schema, so the file starts on a database of its own, as
// if the server were new. Files on one worker run one after another, and a
// `keepgraph start` over Neo4j works on every owner it finds (the outbox
// relay, the scheduled passes, re-embedding what another model wrote): left
// in place, one file's data would be another file's background work, and
// every raw dump would read the whole run.
import { wipeData } from '@keepgraph/store-neo4j/testing';
import { neo4jAuth, neo4jUri } from './services.ts';

await wipeData({ uri: neo4jUri(), ...neo4jAuth() });
