import { createHash } from 'node:crypto';
import { expect } from 'chai';
import sharp from 'sharp';
import {
  closestQuality,
  eventsUploadForm,
  formatServiceLines,
  healthVerdict,
  latencyFigures,
  noise,
  readEventsUpload,
  readMicroblogMedia,
  summarizeUploads,
  withJpegComment,
  type UploadRecord,
  type UploadServiceResult,
} from './uploads.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('upload bench', () => {
  describe('input image', () => {
    it('makes the same noise from the same seed, other noise from another, spread over all byte values', () => {
      const a = noise(30_000, 7);
      expect(a.equals(noise(30_000, 7))).to.equal(true);
      expect(a.equals(noise(30_000, 8))).to.equal(false);
      expect(new Set(a).size).to.equal(256);
      const mean = a.reduce((sum, byte) => sum + byte, 0) / a.length;
      expect(mean).to.be.within(120, 135);
    });

    it('finds the quality whose size is closest to the target, encoding each quality at most once', async () => {
      const asked: number[] = [];
      const sizeAt = async (quality: number) => {
        asked.push(quality);
        return quality * 10_000;
      };
      expect(await closestQuality(sizeAt, 941_000)).to.equal(94);
      expect(new Set(asked).size).to.equal(asked.length);
      expect(asked.length).to.be.at.most(8);
      // A tie keeps the larger file; out of range gives the nearest end.
      expect(await closestQuality(async (q) => q * 10_000, 945_000)).to.equal(95);
      expect(await closestQuality(async (q) => q * 10_000, 5_000_000)).to.equal(100);
      expect(await closestQuality(async (q) => q * 10_000, 1_000)).to.equal(50);
    });

    it('gives each upload its own bytes and hash by a JPEG comment, leaving the pixels as they were', async () => {
      const jpeg = await sharp(noise(64 * 48 * 3, 3), { raw: { width: 64, height: 48, channels: 3 } })
        .jpeg({ quality: 80 })
        .toBuffer();
      const first = withJpegComment(jpeg, 'agora bench upload 1');
      const second = withJpegComment(jpeg, 'agora bench upload 2');
      expect(sha256(first)).to.not.equal(sha256(second));
      expect(sha256(first)).to.not.equal(sha256(jpeg));
      // SOI, then COM with a big-endian length that counts itself, then the original after its SOI.
      expect([...first.subarray(0, 6)]).to.deep.equal([0xff, 0xd8, 0xff, 0xfe, 0, 22]);
      expect(first.subarray(6, 26).toString()).to.equal('agora bench upload 1');
      expect(first.subarray(26).equals(jpeg.subarray(2))).to.equal(true);

      const pixels = await sharp(jpeg, { failOn: 'error' }).raw().toBuffer();
      expect((await sharp(first, { failOn: 'error' }).raw().toBuffer()).equals(pixels)).to.equal(true);
      expect(await sharp(second).metadata()).to.include({ format: 'jpeg', width: 64, height: 48 });
    });

    it('refuses what is not a JPEG, and a comment longer than a segment holds', () => {
      expect(() => withJpegComment(Buffer.from('GIF89a'), 'x')).to.throw('not a JPEG');
      expect(() => withJpegComment(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'x'.repeat(65_534))).to.throw(
        'JPEG comment too long',
      );
      expect(withJpegComment(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'x'.repeat(65_533)).length).to.equal(
        65_541,
      );
    });
  });

  describe('figures', () => {
    it('summarizes health probes with nearest-rank percentiles, counting failed probes apart', () => {
      const samples = Array.from({ length: 200 }, (_, i) => (200 - i) / 10);
      expect(latencyFigures(samples, 2)).to.deep.equal({
        count: 200,
        errors: 2,
        mean: 10.05,
        p50: 10,
        p99: 19.8,
        max: 20,
      });
      expect(latencyFigures([])).to.deep.equal({ count: 0, errors: 0, mean: 0, p50: 0, p99: 0, max: 0 });
    });

    it('passes under 50 ms p99 with no failed probe, and says when nothing was measured', () => {
      const figures = (p99: number, errors = 0) => ({ ...latencyFigures([1, 2, 3]), p99, errors });
      expect(healthVerdict(figures(49.9))).to.equal('PASS');
      expect(healthVerdict(figures(50))).to.equal('BELOW');
      expect(healthVerdict(figures(3, 1))).to.equal('BELOW');
      expect(healthVerdict(latencyFigures([]))).to.equal('NOT MEASURED');
    });

    it('counts an upload once processed: processed uploads over first request → last processed', () => {
      const records: UploadRecord[] = [
        { startedAt: 1000, respondedAt: 1400, status: 202, accepted: true, id: '1', processedAt: 3000 },
        { startedAt: 1100, respondedAt: 1500, status: 202, accepted: true, id: '2', processedAt: 5000 },
        { startedAt: 1200, respondedAt: 2000, status: 200, accepted: true, processedAt: 2000 },
        { startedAt: 1300, respondedAt: 1350, status: 429, problem: 'status 429: Too many requests' },
        { startedAt: 1400, respondedAt: 1450, status: 429, problem: 'status 429: Too many requests' },
        {
          startedAt: 1500,
          respondedAt: 1600,
          status: 202,
          accepted: true,
          id: '6',
          problem: 'not processed within 60 s',
        },
      ];
      expect(summarizeUploads(records, 1_000_000)).to.deep.equal({
        sent: 6,
        accepted: 4,
        processed: 3,
        failed: 3,
        windowSec: 4,
        uploadsPerSec: 0.75,
        megabytesPerSec: 0.75,
        // 4 accepted by 2000 ms, 1 s after the first request.
        acceptedPerSec: 4,
        statusCodes: { '200': 1, '202': 3, '429': 2 },
        problems: ['2× status 429: Too many requests', '1× not processed within 60 s'],
      });
    });

    it('reports no rate when nothing was processed', () => {
      const figures = summarizeUploads([{ startedAt: 5, respondedAt: 9, problem: 'request failed' }], 10);
      expect(figures).to.include({ sent: 1, processed: 0, failed: 1, windowSec: 0, uploadsPerSec: 0 });
      expect(summarizeUploads([], 10)).to.include({ sent: 0, uploadsPerSec: 0, acceptedPerSec: 0 });
    });

    it('prints the rate, both health lines and the verdict against the idle baseline', () => {
      const result: UploadServiceResult = {
        service: 'microblog',
        api: 'microblog POST /api/v2/media',
        outcome: 'ok',
        problems: [],
        notes: [],
        uploads: summarizeUploads(
          [
            { startedAt: 0, respondedAt: 500, accepted: true, id: '1', processedAt: 1500 },
            { startedAt: 0, respondedAt: 900, accepted: true, id: '2', processedAt: 2000 },
          ],
          1_000_000,
        ),
        health: { idle: latencyFigures([1, 2, 3]), underUploads: latencyFigures([2, 4, 62.5], 1) },
        verdict: 'BELOW',
        clientLagP99Ms: 1.5,
        loadAverage: [0.5, 1.75],
      };
      expect(formatServiceLines(result)).to.deep.equal([
        'microblog POST /api/v2/media: 1.00 uploads/s (1.00 MB/s) processed, accepted 2.22/s; 2 of 2 in 2.0 s, 0 failed',
        '  GET /health idle p50 2.00 ms, p99 3.00 ms (3 probes)',
        '  GET /health under uploads p50 4.00 ms, p99 62.5 ms (3 probes, 1 failed); bench upload-thread lag p99 1.50 ms; load average 0.5 → 1.75',
        'target: microblog GET /health p99 under uploads 62.5 ms (idle 3.00 ms; target < 50 ms) BELOW',
      ]);
      const broken = { ...result, outcome: 'failed' as const, problems: ['first upload failed'] };
      delete broken.uploads;
      expect(formatServiceLines(broken)).to.deep.equal([
        'microblog POST /api/v2/media: failed — first upload failed',
      ]);
    });
  });

  describe('answers', () => {
    it('reads uploadMedia: done with a url, failed with the GraphQL error or an HTTP status', () => {
      expect(
        readEventsUpload(200, '{"data":{"uploadMedia":{"id":"3","url":"http://x/media/a.jpg"}}}'),
      ).to.deep.equal({ state: 'processed' });
      expect(
        readEventsUpload(
          200,
          '{"errors":[{"message":"Too many requests","extensions":{"code":"unknown_error"}}],"data":{"uploadMedia":null}}',
        ),
      ).to.deep.equal({ state: 'failed', problem: 'status 200: unknown_error Too many requests' });
      expect(readEventsUpload(413, 'payload too large')).to.deep.equal({
        state: 'failed',
        problem: 'status 413: payload too large',
      });
      expect(readEventsUpload(200, '{"data":{"uploadMedia":null}}').state).to.equal('failed');
    });

    it('reads a media attachment: 200 with url done, 202/206 without url pending, anything else failed', () => {
      expect(readMicroblogMedia(200, '{"id":"9","url":"http://x/system/a.jpg"}')).to.deep.equal({
        state: 'processed',
      });
      expect(readMicroblogMedia(202, '{"id":"9","url":null}')).to.deep.equal({ state: 'pending', id: '9' });
      expect(readMicroblogMedia(206, '{"id":"9","url":null}')).to.deep.equal({ state: 'pending', id: '9' });
      expect(readMicroblogMedia(200, '{"id":"9","url":null}').state).to.equal('failed');
      expect(readMicroblogMedia(429, '{"error":"Too many requests"}')).to.deep.equal({
        state: 'failed',
        problem: 'status 429: {"error":"Too many requests"}',
      });
    });

    it('sends the GraphQL multipart request spec: operations with a null file, map, then the file', async () => {
      const form = eventsUploadForm(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'bench-1.jpg');
      expect([...form.keys()]).to.deep.equal(['operations', 'map', '0']);
      const operations = JSON.parse(String(form.get('operations'))) as { variables: unknown; query: string };
      expect(operations.variables).to.deep.equal({ file: null, name: 'bench-1.jpg' });
      expect(operations.query).to.match(/uploadMedia\(file: \$file, name: \$name\)/);
      expect(JSON.parse(String(form.get('map')))).to.deep.equal({ 0: ['variables.file'] });
      const file = form.get('0') as File;
      expect(file.name).to.equal('bench-1.jpg');
      expect(file.type).to.equal('image/jpeg');
      expect(Buffer.from(await file.arrayBuffer())).to.deep.equal(Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    });
  });
});
