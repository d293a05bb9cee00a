// What generate and enhance pass to the domain so each stored image gets its record (lib/images/library.ts).
import type { Caller } from "@/lib/auth/types";
import type { RecordDeps } from "@/lib/images/library";
import { imageOwnerOf } from "@/lib/images/owner";
import type { Services } from "@/lib/services";

export function recordDepsFor(svc: Services, caller: Caller): RecordDeps {
  return {
    images: svc.images,
    owner: imageOwnerOf(caller, svc.pepper),
    retentionDays: svc.config.images.retentionDays,
  };
}
