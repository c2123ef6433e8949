// The background scenarios in the embedded mode: SQLite, in-process runner.
import { embeddedMode } from './harness.ts';
import { runBackgroundScenarios } from './scenarios.ts';

runBackgroundScenarios(embeddedMode);
