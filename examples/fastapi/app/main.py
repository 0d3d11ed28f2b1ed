"""A FastAPI service protected by Latchkey: run it next to `latchkey serve` (see README.md).

  python3 -m uvicorn app.main:app --port 8000
"""

from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.exceptions import HTTPException
from fastapi.responses import JSONResponse

from .latchkey import ApiKey, User, current_user, latchkey, require_api_key


@asynccontextmanager
async def lifespan(_: FastAPI):
    yield
    await latchkey().close()


app = FastAPI(title="Reports", lifespan=lifespan)


@app.exception_handler(HTTPException)
async def json_error(_, error: HTTPException) -> JSONResponse:
    # Errors as Latchkey writes them: {"code", "message"}.
    body = error.detail if isinstance(error.detail, dict) else {"code": "ERROR", "message": str(error.detail)}
    return JSONResponse(body, status_code=error.status_code, headers=error.headers)


@app.get("/me")
async def me(user: User = Depends(current_user)) -> dict:
    """Who is calling, from the Latchkey JWT (verified here, no call to Latchkey once its keys are cached)."""
    return {"id": user.id, "email": user.email, "emailVerified": user.email_verified}


@app.get("/reports")
async def reports(key: ApiKey = Depends(require_api_key({"reports": ["read"]}))) -> dict:
    """Machine access with an API key that carries reports:read."""
    return {"owner": key.user_id, "key": key.id, "reports": [{"id": "q3", "title": "Third quarter"}]}


@app.get("/health")
async def health() -> dict:
    return {"status": "ok"}
