import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { ChartArea } from './chart-area';
import { chartCode } from './chart-code';

// jsdom has no IntersectionObserver: every chart area is wanted at once (useDrawn).
describe('ChartArea', () => {
  it('draws a chart with code of its own once that code has loaded, in a box that is there before', async () => {
    let resolve: (m: { Plot: () => ReactNode }) => void = () => {};
    const code = chartCode(() => new Promise<{ Plot: () => ReactNode }>((r) => (resolve = r)));
    render(
      <ChartArea code={code} testId="area">
        {(m) => <m.Plot />}
      </ChartArea>,
    );
    expect(screen.getByTestId('area')).toHaveAttribute('data-drawn', 'later');
    resolve({ Plot: () => <svg data-testid="plot" /> });
    expect(await screen.findByTestId('plot')).toBeInTheDocument();
    expect(screen.getByTestId('area')).toHaveAttribute('data-drawn', 'yes');
  });

  it('draws at once with code loaded before', async () => {
    const code = chartCode(() => Promise.resolve({ label: 'ready' }));
    await code.load();
    render(<ChartArea code={code}>{(m) => <span>{m.label}</span>}</ChartArea>);
    expect(screen.getByText('ready')).toBeInTheDocument();
  });

  it('says when the code could not be loaded, and tries again on request', async () => {
    const load = vi.fn().mockRejectedValueOnce(new Error('chunk not found')).mockResolvedValueOnce({ label: 'drawn' });
    const code = chartCode<{ label: string }>(load);
    render(<ChartArea code={code}>{(m) => <span>{m.label}</span>}</ChartArea>);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the chart: chunk not found');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('drawn')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
