// Every /api/auth/* request goes to the standalone handler. Nothing here imports next.
import { getAuth } from "../../../../lib/auth";

// Next calls route handlers with (request, { params }); the auth handler needs only the request.
const handle = (request: Request): Promise<Response> => getAuth().handler(request);

export const GET = handle;
export const POST = handle;
export const PATCH = handle;
export const DELETE = handle;
export const OPTIONS = handle;
