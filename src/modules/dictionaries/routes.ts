import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { deleteRecord, getRecord, getValues, putRecord, writeValues } from './operations.ts';
import {
  DictionaryParams,
  DictionaryQuery,
  DictionaryRecord,
  DictionaryRecordBody,
  DictionaryRecordParams,
  DictionaryRecordsBody,
  DictionaryValues,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Dictionaries'];
const path = '/:tenantName/:instanceName/dictionaries/:dictionaryName';
const readOnlyNote = '`timezone` lists the supported timezones and cannot be written (400 DICTIONARY_READ_ONLY).';

/**
 * 001 dictionary values. A dictionary is a default one (timezone, cpt, icd-10) or one of the
 * current formation, internal ones included; the formations themselves are read through the
 * formation routes (`/formations/current/dictionaries`).
 */
const dictionaryRoutes: AreaPlugin = async (app) => {
  app.get(
    path,
    {
      config: needs('DICTIONARY_READ'),
      schema: {
        tags,
        summary: "A dictionary's records (soft-deleted ones with showDeleted=true)",
        description: `Records are listed oldest first. ${readOnlyNote}`,
        params: DictionaryParams,
        querystring: DictionaryQuery,
        response: { 200: DictionaryValues, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return getValues(ctx, request.params.dictionaryName, request.query.showDeleted ?? false);
    },
  );

  app.post(
    path,
    {
      config: needs('DICTIONARY_UPDATE'),
      schema: {
        tags,
        summary: 'Add records; answers the dictionary values',
        description: `Each record is \`{values: {...}}\`, checked against the dictionary's fields. ${readOnlyNote}`,
        params: DictionaryParams,
        body: DictionaryRecordsBody,
        response: { 200: DictionaryValues, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { dictionaryName } = request.params;
      return writeValues(ctx, dictionaryName, request.body.records, 'add');
    },
  );

  app.put(
    path,
    {
      config: needs('DICTIONARY_UPDATE'),
      schema: {
        tags,
        summary: 'Replace every record (201)',
        description: `The old records, soft-deleted ones included, are deleted for good; an empty list empties the dictionary. ${readOnlyNote}`,
        params: DictionaryParams,
        body: DictionaryRecordsBody,
        response: { 201: DictionaryValues, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { dictionaryName } = request.params;
      const values = await writeValues(ctx, dictionaryName, request.body.records, 'replace');
      return reply.code(201).send(values);
    },
  );

  app.get(
    `${path}/:recordId`,
    {
      config: needs('DICTIONARY_READ'),
      schema: {
        tags,
        summary: 'Read a record (a soft-deleted one too)',
        params: DictionaryRecordParams,
        response: { 200: DictionaryRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return getRecord(ctx, request.params.dictionaryName, request.params.recordId);
    },
  );

  app.put(
    `${path}/:recordId`,
    {
      config: needs('DICTIONARY_UPDATE'),
      schema: {
        tags,
        summary: "Replace a record's values",
        description: `Takes a full record (\`{values: {...}}\`); read-only keys are ignored and \`deleted\` does not change. ${readOnlyNote}`,
        params: DictionaryRecordParams,
        body: DictionaryRecordBody,
        response: { 200: DictionaryRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { dictionaryName, recordId } = request.params;
      return putRecord(ctx, dictionaryName, recordId, request.body);
    },
  );

  app.delete(
    `${path}/:recordId`,
    {
      config: needs('DICTIONARY_UPDATE'),
      schema: {
        tags,
        summary: 'Soft-delete a record; answers it with deleted: true',
        description: `DECISIONS §8. ${readOnlyNote}`,
        params: DictionaryRecordParams,
        response: { 200: DictionaryRecord, ...errors },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { dictionaryName, recordId } = request.params;
      return deleteRecord(ctx, dictionaryName, recordId);
    },
  );
};

export default dictionaryRoutes;
