// Blast radius: which answers served a memory (principal, session, time),
// from the read log. A poisoned memory's reads are the agents and sessions
// that may have acted on it.
import { useLoad, useSession } from '../api.ts';
import { MemoryCard } from '../components/memory-bits.tsx';
import { MemoryIdForm } from '../components/memory-id-form.tsx';
import { when } from '../format.ts';
import { Table } from '../components/table.tsx';

export function Reads({ owner, id }: { owner: string; id: string | null }) {
  const { client } = useSession();
  const memory = useLoad(id ? () => client.get(owner, id) : null, [owner, id]);
  const reads = useLoad(
    () => client.readLog(owner, { ...(id ? { memoryId: id } : {}), limit: 200 }),
    [owner, id],
  );
  return (
    <div class="view reads">
      <h1>Blast radius</h1>
      <MemoryIdForm
        view="reads"
        owner={owner}
        inputId="reads-id"
        initial={id}
        placeholder="all reads of the owner"
        action="Show reads"
        emptyOpens
      />
      {memory.data ? <MemoryCard memory={memory.data} owner={owner} /> : null}
      {memory.error ? (
        <p class="note">
          The memory itself is not readable now ({memory.error}); its reads are still logged.
        </p>
      ) : null}
      {reads.error ? (
        <p class="error" role="alert">
          {reads.error}
        </p>
      ) : null}
      {reads.data ? (
        <>
          <p role="status" data-testid="reads-count">
            {reads.data.reads.length} answer{reads.data.reads.length === 1 ? '' : 's'}{' '}
            {id ? 'served this memory' : `read ${owner}'s memories`}
          </p>
          <Table
            label="Reads"
            head={[
              'When',
              'Principal',
              'Session (keyed hash)',
              'Memories in the answer',
              'Request',
            ]}
          >
            {reads.data.reads.map((r) => (
              <tr>
                <td>{when(r.at)}</td>
                <td>{r.principal}</td>
                <td class="mono">{r.sessionId ? `${r.sessionId.slice(0, 12)}…` : '—'}</td>
                <td>{r.memoryIds.length}</td>
                <td class="mono">{r.requestId}</td>
              </tr>
            ))}
          </Table>
        </>
      ) : null}
    </div>
  );
}
