// The background scenarios in server mode: Neo4j, BullMQ workers on Redis.
import { serverMode } from './harness.ts';
import { runBackgroundScenarios } from './scenarios.ts';

runBackgroundScenarios(serverMode);
