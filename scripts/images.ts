// `npm run images -- sweep | delete <id> | delete-owner <key id> | count`: the image library from the operator's
// shell, on the same store and storage the server uses.
import { parseArgs } from "node:util";
import { parseConfig } from "../lib/config";
import { NotFound } from "../lib/errors";
import { deleteImage, deleteImagesOf } from "../lib/images/library";
import { sweepImages } from "../lib/images/sweep";
import { createServices } from "../lib/services";

const USAGE = `Usage:
  npm run images -- sweep                    remove every image past its expiry or IMAGE_RETENTION_DAYS, now
  npm run images -- delete <id>              delete one image (file and record), whoever owns it
  npm run images -- delete-owner <key id>    delete every image of a Pro key
  npm run images -- count                    how many image records exist`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { help: { type: "boolean", short: "h" } },
  });
  const [command, arg] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const config = parseConfig(process.env);
  const svc = createServices(config);
  const deps = {
    images: svc.images,
    storage: svc.storage,
    retentionDays: config.images.retentionDays,
  };
  try {
    if (command === "sweep") {
      let removed = 0;
      let failed = 0;
      // Runs are bounded; an operator asking for a sweep wants all of it.
      for (;;) {
        const run = await sweepImages(deps);
        removed += run.removed;
        failed += run.failed;
        if (!run.more) break;
      }
      const retention = deps.retentionDays > 0 ? `${deps.retentionDays} days` : "forever";
      console.log(`Removed ${removed} image(s) (retention: ${retention}).`);
      if (failed > 0) console.log(`${failed} file(s) could not be removed now; they are retried by the next sweep.`);
      return failed > 0 ? 1 : 0;
    }
    if (command === "delete") {
      if (!arg) {
        console.error("delete needs an image id (the `id` of a generate or enhance answer)");
        return 2;
      }
      try {
        const record = await deleteImage(arg, "operator", deps);
        console.log(`Deleted ${record.id} (${record.kind}, owner ${record.owner}).`);
        return 0;
      } catch (err) {
        if (!(err instanceof NotFound)) throw err;
        console.error(`No image with id ${arg}.`);
        return 1;
      }
    }
    if (command === "delete-owner") {
      if (!arg) {
        console.error("delete-owner needs a key id (see `npm run keys -- list`)");
        return 2;
      }
      const { removed, failed } = await deleteImagesOf(arg, deps);
      console.log(`Deleted ${removed} image(s) of ${arg}.`);
      if (failed > 0) console.log(`${failed} file(s) could not be removed now; run it again later.`);
      return failed > 0 ? 1 : 0;
    }
    if (command === "count") {
      console.log(`${await deps.images.count()} image record(s).`);
      return 0;
    }
    console.error(`Unknown command "${command}".\n${USAGE}`);
    return 2;
  } finally {
    await svc.backend.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
