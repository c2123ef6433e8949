// Queues for operators: the job runner's figures (GET /v1/queues, the one
// route under /v1 that is not a use-case, so it is read with fetch), and a
// link to Bull Board where the jobs run on BullMQ.
import { queueFigures, useLoad, useSession } from '../api.ts';
import { duration } from '../format.ts';
import { Table } from '../components/table.tsx';

export function Queues() {
  const { apiKey, who } = useSession();
  const figures = useLoad(who.role === 'operator' ? () => queueFigures(apiKey) : null, []);
  return (
    <div class="view queues">
      <h1>Background jobs</h1>
      {who.role !== 'operator' ? <p class="note">Queue figures are for operator keys.</p> : null}
      {figures.error ? (
        <p class="error" role="alert">
          {figures.error}
        </p>
      ) : null}
      {figures.data && !figures.data.configured ? (
        <p class="empty">This server runs without a job runner.</p>
      ) : null}
      {figures.data?.configured ? (
        <>
          <Table
            label="Queues"
            head={[
              'Queue',
              'Waiting',
              'Active',
              'Delayed',
              'Failed',
              'Completed',
              'Time p50 / p95',
            ]}
          >
            {figures.data.queues.map((q) => (
              <tr>
                <th scope="row">{q.name}</th>
                <td>{q.waiting}</td>
                <td>{q.active}</td>
                <td>{q.delayed}</td>
                <td>{q.failed}</td>
                <td>{q.completed}</td>
                <td>
                  {duration(q.durationMs.p50)} / {duration(q.durationMs.p95)}
                </td>
              </tr>
            ))}
          </Table>
          <p>
            <a href="/admin/queues">Bull Board</a> (when the jobs run on BullMQ: the server mode)
            lists each job.
          </p>
          <button type="button" onClick={figures.reload}>
            Refresh
          </button>
        </>
      ) : null}
    </div>
  );
}
