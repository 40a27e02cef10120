import { Loading } from '@/components/ui/states';
import { useMe } from '@/features/auth/api/get-me';
import { UsersPage } from '@/features/users/components/users-page';

export function Component() {
  const me = useMe();
  return me.data ? <UsersPage me={me.data} /> : <Loading />;
}
