import path from 'node:path';
import { Type } from 'typebox';
import { invalid, settingsSection } from '../config.ts';

/** Where file bytes live: the files mechanism's section of the configuration. */
export const fileStoreSettings = settingsSection(
  'files',
  Type.Object({
    CAIRN_FILE_STORE: Type.Union([Type.Literal('local'), Type.Literal('s3')], {
      default: 'local',
      description: 'Where file bytes live: local (CAIRN_DATA_DIR/files) or s3 (the CAIRN_S3_* settings).',
    }),
    CAIRN_S3_BUCKET: Type.String({ default: '', description: 'S3 bucket for files (CAIRN_FILE_STORE=s3).' }),
    CAIRN_S3_REGION: Type.String({ default: 'us-east-1', description: 'S3 region.' }),
    CAIRN_S3_ENDPOINT: Type.String({
      default: '',
      description: 'An S3-compatible server (MinIO, R2, Ceph), e.g. http://127.0.0.1:9000. Unset: AWS.',
    }),
    CAIRN_S3_ACCESS_KEY_ID: Type.String({
      default: '',
      description: "S3 access key. Unset: the AWS SDK's own chain (environment, role).",
    }),
    CAIRN_S3_SECRET_ACCESS_KEY: Type.String({ default: '', description: 'S3 secret key, with CAIRN_S3_ACCESS_KEY_ID.' }),
    CAIRN_S3_FORCE_PATH_STYLE: Type.Boolean({
      default: false,
      description: 'Address the bucket in the path rather than the host name (most S3-compatible servers need it).',
    }),
  }),
  (e, platform): FileStoreSettings => {
    if (e.CAIRN_FILE_STORE === 's3' && !e.CAIRN_S3_BUCKET) invalid('CAIRN_S3_BUCKET: required when CAIRN_FILE_STORE is s3');
    if (Boolean(e.CAIRN_S3_ACCESS_KEY_ID) !== Boolean(e.CAIRN_S3_SECRET_ACCESS_KEY)) {
      invalid('CAIRN_S3_ACCESS_KEY_ID and CAIRN_S3_SECRET_ACCESS_KEY go together');
    }
    if (e.CAIRN_FILE_STORE === 'local') return { driver: 'local', root: path.join(platform.dataDir, 'files') };
    return {
      driver: 's3',
      bucket: e.CAIRN_S3_BUCKET,
      region: e.CAIRN_S3_REGION,
      endpoint: e.CAIRN_S3_ENDPOINT,
      accessKeyId: e.CAIRN_S3_ACCESS_KEY_ID,
      secretAccessKey: e.CAIRN_S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.CAIRN_S3_FORCE_PATH_STYLE,
    };
  },
);

export type FileStoreSettings =
  | { driver: 'local'; root: string }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      endpoint: string;
      accessKeyId: string;
      secretAccessKey: string;
      forcePathStyle: boolean;
    };
