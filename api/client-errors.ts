/**
 * Requests Node's HTTP parser refuses before express sees them (a 100 KB URL or header block, a
 * malformed request line) still get the documented error body instead of an empty answer.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';

function answer(socket: Duplex, status: number, reason: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message, request_id: randomUUID() } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      answer(socket, 431, 'Request Header Fields Too Large', 'INVALID_REQUEST', 'the URL or headers are too large (16 KiB at most together); send filters in a request body or fewer parameters');
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer(socket, 408, 'Request Timeout', 'INVALID_REQUEST', 'the request took too long to arrive');
    } else {
      answer(socket, 400, 'Bad Request', 'INVALID_REQUEST', 'the request is not valid HTTP/1.1');
    }
  });
}
