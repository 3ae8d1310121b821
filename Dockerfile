# Taskchat API image. Runtime dependencies come from the lock file only; the process runs unprivileged.
# docker-compose.yml builds it for both the one-shot `migrate` service and the `api` service.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ENVIRONMENT=production

WORKDIR /app

# Dependencies first: this layer is rebuilt only when the lock changes.
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock

# The application and its migrations (`taskchat migrate` finds alembic.ini in the working directory).
COPY pyproject.toml alembic.ini ./
COPY alembic ./alembic
COPY backend ./backend
RUN pip install --no-cache-dir --no-deps . \
    && rm -rf build *.egg-info \
    && useradd --system --create-home --uid 10001 --user-group taskchat

USER taskchat

EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/ready', timeout=2).status == 200 else 1)"]
CMD ["taskchat", "serve", "--host", "0.0.0.0", "--port", "8000"]
