// @keepgraph/langgraph: KeepGraph as a LangGraph.js store.
export { KeepGraphStore, type KeepGraphStoreOptions } from './store.ts';
