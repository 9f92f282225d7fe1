import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry0 from './index.ts';
import * as entry1 from './workflow-entry.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/temporal', () => {
    expect(exportList(entry0, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'FAULTLINE_FAILURE_TYPE',
        'UNRECOVERABLE_WORKFLOW_FAILURE',
        'faultlineWorkerOptions',
        'recoverErrorReport',
        'reportDetails',
        'toApplicationFailure',
        'withFaultlineActivity',
      ],
      types: ['FaultlineActivityOptions'],
    });
  });
  it('@faultline/temporal/workflow', () => {
    expect(exportList(entry1, new URL('./workflow-entry.ts', import.meta.url))).toEqual({
      values: ['withFaultlineWorkflow'],
      types: [],
    });
  });
});
