// Image storage in any S3-compatible bucket (AWS S3, Cloudflare R2, Backblaze B2, MinIO, Garage, Ceph, Swift's
// s3api), so every instance stores and serves the same images. Objects are `<S3_PREFIX><32 hex>.<ext>`; temporary
// objects are `<S3_PREFIX>temp/<key>`.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { OUTPUT_FORMATS } from "@/lib/catalog/output-formats";
import { StorageUnavailable } from "@/lib/errors";
import { withDeadline } from "./deadline";
import { fileOfImageId, imageIdOf, isImageId, isTempKey, newImageFile } from "./names";
import type { ImageStorage, OpenedImage } from "./types";

/** Images never change (every put gets a new random name), so caches may keep them for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** S3's smallest multipart part: bodies over it are written in parts of this size, two at a time. */
export const MULTIPART_PART_BYTES = 5 * 1024 * 1024;
/** Temporary objects removed at once by the sweep. */
const SWEEP_CONCURRENCY = 4;

export type S3StorageOptions = {
  bucket: string;
  /** @default "us-east-1" */
  region?: string;
  /** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL: any S3-compatible service; unset for AWS. */
  endpoint?: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which most self-hosted services need. @default false */
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `darkroom/`. @default "" */
  prefix?: string;
  /** Unset: the SDK's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * Flexible checksums on requests and responses. WHEN_SUPPORTED (the SDK's default since 3.729) sends CRC headers
   * that several non-AWS services reject, so only what an operation requires is sent by default.
   * @default "WHEN_REQUIRED"
   */
  checksums?: "WHEN_REQUIRED" | "WHEN_SUPPORTED";
  /** PUBLIC_CDN_URL: image URLs go there (a public bucket or a CDN in front of it) instead of the app's /cdn. */
  publicBase?: string;
  /** How long one storage call may take, its retries included. @default 20_000 */
  deadlineMs?: number;
  /** Attempts per call (the SDK's standard retry mode with backoff). @default 3 */
  maxAttempts?: number;
};

function s3ClientOf(opts: S3StorageOptions): S3Client {
  const checksums = opts.checksums ?? "WHEN_REQUIRED";
  return new S3Client({
    region: opts.region ?? "us-east-1",
    ...(opts.endpoint && { endpoint: opts.endpoint }),
    forcePathStyle: opts.forcePathStyle ?? false,
    ...(opts.credentials && { credentials: opts.credentials }),
    requestChecksumCalculation: checksums,
    responseChecksumValidation: checksums,
    maxAttempts: opts.maxAttempts ?? 3,
    // A connection that cannot be made, or a socket that goes quiet, fails the attempt (and is retried) well
    // before the call's deadline.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
  });
}

/** The bucket's object calls, each under the call deadline, every failure a StorageUnavailable. */
function openBucket(opts: S3StorageOptions) {
  const bucket = opts.bucket;
  const deadlineMs = opts.deadlineMs ?? 20_000;
  const client = s3ClientOf(opts);
  const call = <T>(run: (abortSignal: AbortSignal) => Promise<T>) => withDeadline(deadlineMs, run, asStorageError);

  const putObject = async (key: string, bytes: Buffer, contentType: string, cacheControl?: string) => {
    const params = { Bucket: bucket, Key: key, Body: bytes, ContentType: contentType, CacheControl: cacheControl };
    if (bytes.length <= MULTIPART_PART_BYTES) {
      await call((abortSignal) =>
        client.send(new PutObjectCommand({ ...params, ContentLength: bytes.length }), { abortSignal }),
      );
      return;
    }
    // Written in parts; on any failure the upload is aborted, so no parts are left behind to pay for.
    const upload = new Upload({ client, params, partSize: MULTIPART_PART_BYTES, queueSize: 2 });
    await call((abortSignal) => {
      abortSignal.addEventListener("abort", () => void upload.abort().catch(() => {}), { once: true });
      return upload.done();
    });
  };

  /** Streams an object; null when absent. The deadline covers the answer's headers; the body is read on demand. */
  const openObject = async (key: string): Promise<OpenedImage | null> => {
    let res: GetObjectCommandOutput;
    try {
      res = await withDeadline(
        deadlineMs,
        (abortSignal) => client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal }),
        (err) => err,
      );
    } catch (err) {
      if (isNotFound(err)) return null;
      throw asStorageError(err);
    }
    const size = res.ContentLength;
    if (!res.Body || size === undefined || !Number.isSafeInteger(size)) {
      await res.Body?.transformToWebStream().cancel();
      throw new StorageUnavailable("image storage gave no length");
    }
    return { size, stream: res.Body.transformToWebStream() as ReadableStream<Uint8Array> };
  };

  const deleteObject = (key: string) =>
    call((abortSignal) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), { abortSignal }));

  const listObjects = (prefix: string, token: string | undefined) =>
    call((abortSignal) =>
      client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }), {
        abortSignal,
      }),
    );

  const check = () =>
    call((abortSignal) => client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal })).then(() => {});

  return { putObject, openObject, deleteObject, listObjects, check };
}

type Bucket = ReturnType<typeof openBucket>;

/** Removes the objects under `prefix` last written before `before` (ms), page by page; returns how many. */
async function sweepObjects(b: Bucket, prefix: string, before: number): Promise<number> {
  let removed = 0;
  let token: string | undefined;
  do {
    const page = await b.listObjects(prefix, token);
    const old = (page.Contents ?? [])
      .filter((o) => o.Key && o.LastModified && o.LastModified.getTime() < before)
      .map((o) => o.Key as string);
    // One DeleteObject each: the batch delete needs a Content-MD5 that some services insist on and the SDK
    // no longer sends, and there are few temporary objects.
    for (let i = 0; i < old.length; i += SWEEP_CONCURRENCY) {
      await Promise.all(old.slice(i, i + SWEEP_CONCURRENCY).map(b.deleteObject));
    }
    removed += old.length;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return removed;
}

export function createS3Storage(opts: S3StorageOptions): ImageStorage {
  const prefix = opts.prefix ?? "";
  const b = openBucket(opts);
  const imageKey = (file: string) => `${prefix}${file}`;
  const tempKey = (key: string) => `${prefix}temp/${key}`;
  return {
    kind: "s3",
    async put(bytes, origin, format = "png") {
      const { name, file } = newImageFile(format);
      await b.putObject(imageKey(file), bytes, OUTPUT_FORMATS[format].contentType, IMMUTABLE);
      return { id: imageIdOf(name, file, format), url: `${opts.publicBase ?? `${origin}/cdn`}/${file}` };
    },
    async open(id) {
      return isImageId(id) ? b.openObject(imageKey(fileOfImageId(id))) : null;
    },
    async delete(id) {
      // S3 answers a delete of an absent key with success, so deleting twice is a no-op.
      if (isImageId(id)) await b.deleteObject(imageKey(fileOfImageId(id)));
    },
    check: b.check,
    temp: {
      async put(key, bytes) {
        if (!isTempKey(key)) throw new TypeError("invalid temporary key");
        await b.putObject(tempKey(key), bytes, "application/octet-stream");
      },
      async open(key) {
        return isTempKey(key) ? b.openObject(tempKey(key)) : null;
      },
      async delete(key) {
        if (isTempKey(key)) await b.deleteObject(tempKey(key));
      },
      sweep: (before) => sweepObjects(b, tempKey(""), before),
    },
  };
}

function isNotFound(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === "NoSuchKey" || err.$metadata.httpStatusCode === 404);
}

/** What each refusal means for the operator, by S3 error code, then by HTTP status (HeadBucket has no body). */
const REFUSALS: Record<string, string> = {
  InvalidAccessKeyId: "the S3 service does not know AWS_ACCESS_KEY_ID",
  SignatureDoesNotMatch: "the S3 service rejects AWS_SECRET_ACCESS_KEY (the signature does not match)",
  AccessDenied: "the S3 credentials may not use the bucket",
  NoSuchBucket: "the bucket in S3_BUCKET does not exist",
  "403": "the S3 service rejects AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or they may not use the bucket",
  "404": "the bucket in S3_BUCKET does not exist",
};

/**
 * Every failure becomes StorageUnavailable (503 busy with the unit back, nothing kept), with a message that says
 * whether the service cannot be reached or refuses the configuration.
 */
function asStorageError(err: unknown): StorageUnavailable {
  if (err instanceof StorageUnavailable) return err;
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode;
    const refusal = REFUSALS[err.name] ?? REFUSALS[String(status)];
    if (refusal) return new StorageUnavailable(`image storage: ${refusal}`, { cause: err, refused: true });
    return new StorageUnavailable(`image storage: S3 answered ${err.name} (HTTP ${status ?? "no status"})`, {
      cause: err,
    });
  }
  return new StorageUnavailable("image storage cannot be reached", { cause: err });
}
