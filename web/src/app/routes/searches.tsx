import { SearchesPage } from '@/features/searches/components/searches-page';

export function Component() {
  return <SearchesPage />;
}
