// Response schemas of the HTTP API: deletions. The receipt and the dry-run
// preview are core's (DeletionReceiptSchema, DeletionPreviewSchema); one
// route answers either.
import { z } from 'zod';
import { DeletionPreviewSchema } from '@keepgraph/core';
import { DeletionReceiptSchema } from '@keepgraph/core/ports';

/** Forget's and revoke-source's answer: the receipt, or with `dryRun: true` the preview. */
export const ReceiptOrPreviewOut = z.union([DeletionReceiptSchema, DeletionPreviewSchema]);
